// Package cli is corepin's command line: a table of commands on the
// standard library's flag package, with what a command line needs besides
// (GNU style --flag value and --flag=value anywhere among the arguments,
// "--", one-letter aliases, subcommands, help with examples, completion for
// bash, zsh and fish), in a few hundred lines, so that the binary needs no
// CLI library (and no "net" package, which would make the default build
// dynamic).
//
// To add a command to corepin:
//
//	func newFooCmd() *cli.Command {
//		var n int
//		cmd := &cli.Command{
//			Use:     "foo [FILE]",
//			Short:   "One line for the command list",
//			Long:    "A paragraph for corepin help foo.",
//			Example: "  corepin foo --n 3 data.txt",
//			Args:    cli.MaxArgs(1, "at most one file"),
//		}
//		cmd.Flags().IntVar(&n, "n", 1, "how many `times`") // `times` names the value in the help
//		cmd.Run = func(in *cli.Invocation, args []string) error {
//			fmt.Fprintln(in.Stdout, n, args)
//			return nil
//		}
//		return cmd
//	}
//
// then add cli.Lazy("foo", newFooCmd) to the root's AddCommand
// (cmd/corepin/root.go), so that it is built only when it runs. A
// one-letter alias: cmd.Alias("q", "quiet"); words the shell completes for
// a flag's value: cmd.Complete("mode", "exact", "soft"); did the user give
// a flag: in.Changed("nice"). A flag whose value is a file the command
// writes: cmd.Output("report", cli.File) (corepin --on brings it back).
// A command that reads or changes the machine it runs on is marked
// Device: cli.OnDevice (with --on it runs there). An error wrapped in
// UsageError is a wrong command line (corepin exits 2 and points to the
// command's help).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// A Command is one entry of the command table.
type Command struct {
	Use     string // the name, then the positional arguments ("run [SUITE.toml]")
	Short   string // one line, shown in the parent's command list
	Long    string // the help text; short when empty
	Example string // example command lines, each indented by two spaces
	Hidden  bool   // left out of help and completion

	// StopAtArgs ends the flags at the first positional argument, so
	// that what follows it belongs to another program (exec).
	StopAtArgs bool
	// Raw passes every argument through unparsed.
	Raw bool
	// Device says how the command goes with another machine (corepin's
	// --on); a subcommand without one has its parent's.
	Device Device

	Args func(args []string) error                 // checks the positional arguments
	Run  func(in *Invocation, args []string) error // nil for a group of subcommands
	// Intercept, on the root, sees every command line once it is parsed
	// and checked, before its command runs; when it returns true it has
	// dealt with the command (corepin --on runs it on a device), and Run
	// is not called.
	Intercept func(in *Invocation) (bool, error)

	commands []*Command
	parent   *Command
	build    func() *Command // a Lazy entry's constructor

	fs          *flag.FlagSet
	persistent  *flag.FlagSet       // flags of c and of every command below it
	aliases     map[string]string   // one-letter name -> flag name
	completions map[string][]string // flag name -> values to complete
	outputs     map[string]Output   // flag name -> what its value names
}

// Device is how a command goes with another machine.
type Device int

const (
	// Here: the command works on files of this machine and runs here.
	Here Device = iota
	// OnDevice: the command reads or changes the machine it runs on; on
	// another machine it runs there.
	OnDevice
	// AboutDevice: the command runs here, on the other machines (their
	// runs' status, a pull).
	AboutDevice
)

// Output is what the value of a flag that names an output is.
type Output int

const (
	NoOutput Output = iota
	File            // a file the command writes
	Folder          // a folder the command writes files into
	// Results: a folder under which the command makes one of its own,
	// named only when it ends (corepin run's --out).
	Results
)

// An Invocation is what a command's Run sees besides its arguments.
type Invocation struct {
	Ctx            context.Context
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Cmd is the command that runs, and Line its command line as parsed,
	// the persistent flags left out.
	Cmd  *Command
	Line []Arg
	set  map[string]bool // flags given on the command line
}

// An Arg is one argument of a command line, as the parser read it.
type Arg struct {
	// Flag is the flag's name (its long name for an alias), "" for a
	// positional argument.
	Flag string
	// Value is the flag's value ("true" for a boolean flag given alone),
	// or the positional argument.
	Value string
	// Bool: the flag is a boolean one.
	Bool bool
	// Rest: the argument comes after "--", or after the first positional
	// argument of a StopAtArgs command: it belongs to another program.
	Rest bool
}

// Words writes the argument back as command-line words.
func (a Arg) Words() []string {
	switch {
	case a.Flag == "":
		return []string{a.Value}
	case a.Bool && a.Value == "true":
		return []string{"--" + a.Flag}
	case a.Bool:
		return []string{"--" + a.Flag + "=" + a.Value}
	}
	return []string{"--" + a.Flag, a.Value}
}

// Changed reports whether the flag was given on the command line.
func (in *Invocation) Changed(name string) bool { return in.set[name] }

// Words is the command line as words again, from the command's name on
// ("experiment qos --runs 3"), with each argument as rewrite returns it
// (nil rewrite: as given). A "--" goes before the first argument that
// belongs to another program.
func (in *Invocation) Words(rewrite func(Arg) []string) []string {
	words := strings.Fields(strings.TrimPrefix(in.Cmd.Path(), in.Cmd.root().Name()))
	rest := false
	for _, a := range in.Line {
		if a.Rest && !rest {
			words, rest = append(words, "--"), true
		}
		if rewrite == nil || a.Rest {
			words = append(words, a.Words()...)
			continue
		}
		words = append(words, rewrite(a)...)
	}
	return words
}

// Flags returns the command's flag set, made on first use.
func (c *Command) Flags() *flag.FlagSet {
	if c.fs == nil {
		c.fs = flag.NewFlagSet(c.Name(), flag.ContinueOnError)
		c.fs.SetOutput(io.Discard)
	}
	return c.fs
}

// PersistentFlags returns the flags of c that every command below it
// takes too, before or after its name.
func (c *Command) PersistentFlags() *flag.FlagSet {
	if c.persistent == nil {
		c.persistent = flag.NewFlagSet(c.Name(), flag.ContinueOnError)
		c.persistent.SetOutput(io.Discard)
	}
	return c.persistent
}

// Output says what the value of the flag name is: a file or a folder the
// command writes.
func (c *Command) Output(name string, what Output) {
	if c.outputs == nil {
		c.outputs = map[string]Output{}
	}
	c.outputs[name] = what
}

// OutputOf is what the flag name's value names, NoOutput when it is no
// output of the command.
func (c *Command) OutputOf(name string) Output { return c.outputs[name] }

// DeviceUse is how c goes with another machine: its own Device, else its
// parent's.
func (c *Command) DeviceUse() Device {
	for k := c; k != nil; k = k.parent {
		if k.Device != Here {
			return k.Device
		}
	}
	return Here
}

func (c *Command) hasFlags() bool {
	n := 0
	if c.fs != nil {
		c.fs.VisitAll(func(*flag.Flag) { n++ })
	}
	return n > 0
}

// Alias lets -short stand for --name.
func (c *Command) Alias(short, name string) {
	if c.aliases == nil {
		c.aliases = map[string]string{}
	}
	c.aliases[short] = name
}

// Complete names the values the shell offers for a flag.
func (c *Command) Complete(name string, words ...string) {
	if c.completions == nil {
		c.completions = map[string][]string{}
	}
	c.completions[name] = words
}

// AddCommand adds subcommands.
func (c *Command) AddCommand(subs ...*Command) {
	for _, s := range subs {
		s.parent = c
		c.commands = append(c.commands, s)
	}
}

// Name is the command's name, the first word of Use.
func (c *Command) Name() string {
	name, _, _ := strings.Cut(c.Use, " ")
	return name
}

// Path is the command line that reaches c ("corepin experiment qos").
func (c *Command) Path() string {
	if c.parent == nil {
		return c.Name()
	}
	return c.parent.Path() + " " + c.Name()
}

func (c *Command) find(name string) *Command {
	for i, s := range c.commands {
		if s.Name() == name {
			return c.child(i)
		}
	}
	return nil
}

// Lazy is a subcommand built only when it is used (run, or listed in a
// help), so that starting one command does not build every other's
// flags. name must be the name the built command has.
func Lazy(name string, build func() *Command) *Command {
	return &Command{Use: name, build: build}
}

// child is the i-th subcommand, built if it was added with Lazy.
func (c *Command) child(i int) *Command {
	s := c.commands[i]
	if s.build == nil {
		return s
	}
	built := s.build()
	if built.Name() != s.Name() {
		panic(fmt.Sprintf("cli.Lazy(%q, ...) built the command %q", s.Name(), built.Name()))
	}
	built.parent = c
	c.commands[i] = built
	return built
}

// children are the subcommands, all built.
func (c *Command) children() []*Command {
	for i := range c.commands {
		c.child(i)
	}
	return c.commands
}

// errHelp asks for the command's help instead of running it.
var errHelp = errors.New("help requested")

// Execute finds the subcommand that args name, parses its flags and runs
// it. A wrong command line is a *CommandError wrapping a UsageError.
func (c *Command) Execute(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	cmd, args, err := c.resolve(args)
	if err != nil {
		return err
	}
	err = cmd.parseAndRun(ctx, stdin, stdout, stderr, args)
	var ue UsageError
	if errors.As(err, &ue) {
		return &CommandError{Cmd: cmd, Err: err}
	}
	return err
}

// A CommandError is a usage error with the command it concerns, whose help
// the message can point to.
type CommandError struct {
	Cmd *Command
	Err error
}

func (e *CommandError) Error() string { return e.Err.Error() }
func (e *CommandError) Unwrap() error { return e.Err }

// UsageError marks an error in the command line itself.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func (cmd *Command) parseAndRun(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	in, pos, err := cmd.invocation(args)
	if errors.Is(err, errHelp) {
		cmd.help(stdout)
		return nil
	}
	if err != nil {
		return err
	}
	in.Ctx, in.Stdin, in.Stdout, in.Stderr = ctx, stdin, stdout, stderr
	if root := cmd.root(); root.Intercept != nil {
		if done, err := root.Intercept(in); done || err != nil {
			return err
		}
	}
	if cmd.Run == nil { // a group: its help
		cmd.help(stdout)
		return nil
	}
	return cmd.Run(in, pos)
}

// invocation parses and checks args, the command line of cmd, and returns
// what its Run sees.
func (cmd *Command) invocation(args []string) (*Invocation, []string, error) {
	in := &Invocation{Cmd: cmd, set: map[string]bool{}}
	if cmd.Raw {
		for _, a := range args {
			in.Line = append(in.Line, Arg{Value: a, Rest: true})
		}
		return in, args, nil
	}
	var err error
	if in.Line, err = cmd.parse(args, in.set); err != nil {
		if errors.Is(err, errHelp) {
			return nil, nil, err
		}
		return nil, nil, UsageError{err}
	}
	var pos []string
	for _, a := range in.Line {
		if a.Flag == "" {
			pos = append(pos, a.Value)
		}
	}
	switch {
	case cmd.Run == nil && len(pos) > 0:
		return nil, nil, UsageError{fmt.Errorf("unknown command %q for %q", pos[0], cmd.Path())}
	case cmd.Run != nil && cmd.Args != nil:
		if err := cmd.Args(pos); err != nil {
			return nil, nil, err
		}
	}
	return in, pos, nil
}

// Parse parses and checks a command line as Execute would, without
// running anything, and returns what the command's Run would see (with
// no context and no streams).
func (c *Command) Parse(args []string) (*Invocation, error) {
	cmd, rest, err := c.resolve(args)
	if err != nil {
		return nil, err
	}
	in, _, err := cmd.invocation(rest)
	return in, err
}

// resolve walks the subcommand names at the front of args; the
// persistent flags among them are kept for the command's own parse.
func (c *Command) resolve(args []string) (*Command, []string, error) {
	cmd := c
	var lead []string
	for len(cmd.commands) > 0 && len(args) > 0 {
		if strings.HasPrefix(args[0], "-") {
			n := cmd.persistentWords(args)
			if n == 0 {
				break
			}
			lead, args = append(lead, args[:n]...), args[n:]
			continue
		}
		sub := cmd.find(args[0])
		if sub == nil {
			return nil, nil, UsageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.Path())}
		}
		cmd, args = sub, args[1:]
	}
	return cmd, append(lead, args...), nil
}

// persistentWords is how many words of args a persistent flag at their
// front takes (one, or two with its value), 0 when they start with none.
func (c *Command) persistentWords(args []string) int {
	name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	f, persistent := c.lookup(name)
	switch {
	case f == nil || !persistent || strings.HasPrefix(args[0], "---"):
		return 0
	case hasValue || isBool(f):
		return 1
	}
	return min(2, len(args))
}

// lookup finds the flag --name (or the alias -name) of c or, persistent,
// of c or a command above it.
func (c *Command) lookup(name string) (f *flag.Flag, persistent bool) {
	if long, ok := c.aliases[name]; ok {
		name = long
	}
	if c.fs != nil {
		if f := c.fs.Lookup(name); f != nil {
			return f, false
		}
	}
	for k := c; k != nil; k = k.parent {
		if k.persistent != nil {
			if f := k.persistent.Lookup(name); f != nil {
				return f, true
			}
		}
	}
	return nil, false
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parse sets the flags in args, notes their names in set, and returns the
// command's line: its own flags and positional arguments, in order.
func (c *Command) parse(args []string, set map[string]bool) (line []Arg, err error) {
	rest := func(words []string) []Arg {
		for _, w := range words {
			line = append(line, Arg{Value: w, Rest: true})
		}
		return line
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return rest(args[i+1:]), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if c.StopAtArgs {
				return rest(args[i:]), nil
			}
			line = append(line, Arg{Value: a})
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f, persistent := c.lookup(name)
		if f == nil || strings.HasPrefix(a, "---") || name == "" {
			if name == "help" || name == "h" {
				return nil, errHelp
			}
			flagText, _, _ := strings.Cut(a, "=")
			return nil, fmt.Errorf("unknown flag %s", flagText)
		}
		name = f.Name
		if isBool(f) && !hasValue {
			value = "true"
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := f.Value.Set(value); err != nil {
			return nil, fmt.Errorf("invalid value %q for --%s: %v", value, name, flagError(f, err))
		}
		if negativeDuration(f) {
			return nil, fmt.Errorf("invalid value %q for --%s: a length of time cannot be negative", value, name)
		}
		set[name] = true
		if !persistent {
			line = append(line, Arg{Flag: name, Value: value, Bool: isBool(f)})
		}
	}
	return line, nil
}

// negativeDuration says whether f is a duration flag set below zero. Every
// duration corepin takes is a length of time (a period, a timeout, a wait),
// so the parser refuses a negative one for every command, instead of each
// command remembering to.
func negativeDuration(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	d, ok := g.Get().(time.Duration)
	return ok && d < 0
}

// flagError says what a flag wants where the flag package only says
// "parse error" or "value out of range".
func flagError(f *flag.Flag, err error) string {
	msg := err.Error()
	if msg == "parse error" || msg == "value out of range" {
		valueName, _ := flag.UnquoteUsage(f)
		return msg + ", want " + valueName
	}
	return msg
}

// help writes the command's help.
func (c *Command) help(w io.Writer) {
	text := c.Long
	if text == "" {
		text = c.Short
	}
	fmt.Fprintf(w, "%s\n\nUsage:\n", strings.TrimSpace(text))
	if c.Run != nil {
		usage := c.Path() + strings.TrimPrefix(c.Use, c.Name())
		if c.hasFlags() && !strings.Contains(usage, "[flags]") {
			usage += " [flags]"
		}
		fmt.Fprintf(w, "  %s\n", usage)
	}
	if len(c.commands) > 0 {
		fmt.Fprintf(w, "  %s COMMAND [flags]\n\nCommands:\n", c.Path())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range c.children() {
			if !s.Hidden {
				fmt.Fprintf(tw, "  %s\t%s\n", s.Name(), s.Short)
			}
		}
		tw.Flush()
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	c.writeFlags(w)
	for k := c; k != nil; k = k.parent {
		if k.persistent != nil {
			fmt.Fprintf(w, "\nFlags of every %s command:\n", k.Path())
			writeFlagSet(w, k.persistent, nil)
		}
	}
	if len(c.commands) > 0 {
		fmt.Fprintf(w, "\nRun '%s help %sCOMMAND' for a command's help.\n", c.root().Name(), strings.TrimPrefix(c.Path()+" ", c.root().Name()+" "))
	}
}

// writeFlags lists the flags, with their aliases and non-zero defaults.
func (c *Command) writeFlags(w io.Writer) {
	short := map[string]string{}
	for s, long := range c.aliases {
		short[long] = s
	}
	writeFlagSet(w, c.fs, short)
}

// writeFlagSet lists the flags of fs (nil: none) with their aliases and
// non-zero defaults; only a command's own flags (short not nil) end with
// --help.
func writeFlagSet(w io.Writer, fs *flag.FlagSet, short map[string]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	if short != nil {
		defer fmt.Fprintf(tw, "  -h, --help\tthis help\n")
	}
	if fs == nil {
		return
	}
	fs.VisitAll(func(f *flag.Flag) {
		valueName, usage := flag.UnquoteUsage(f)
		head := "      --" + f.Name
		if s, ok := short[f.Name]; ok {
			head = "  -" + s + ", --" + f.Name
		}
		if valueName != "" {
			head += " " + valueName
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && d != "[]" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(tw, "%s\t%s\n", head, usage)
	})
}

// HelpCommand is "corepin help [COMMAND...]" for the root command.
func HelpCommand(root *Command) *Command {
	return &Command{
		Use:   "help [COMMAND...]",
		Short: "Show the help of " + root.Name() + " or of a command",
		Run: func(in *Invocation, args []string) error {
			cmd, rest, err := root.resolve(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return UsageError{fmt.Errorf("unknown command %q for %q", rest[0], cmd.Path())}
			}
			cmd.help(in.Stdout)
			return nil
		},
	}
}

// ListValue is a comma-separated list flag that may be repeated.
type ListValue []string

func (l *ListValue) String() string { return strings.Join(*l, ",") }

func (l *ListValue) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// NoArgs rejects positional arguments.
func NoArgs(args []string) error {
	if len(args) > 0 {
		return UsageError{fmt.Errorf("unexpected argument %q", args[0])}
	}
	return nil
}

// ExactArgs wants n positional arguments, and says msg otherwise.
func ExactArgs(n int, msg string) func([]string) error {
	return func(args []string) error {
		if len(args) != n {
			return UsageError{errors.New(msg)}
		}
		return nil
	}
}

// visible lists the subcommands shown in help and completion.
func (c *Command) visible() []*Command {
	return slices.DeleteFunc(slices.Clone(c.children()), func(s *Command) bool { return s.Hidden })
}

// MaxArgs wants at most n positional arguments, and says msg otherwise.
func MaxArgs(n int, msg string) func([]string) error {
	return func(args []string) error {
		if len(args) > n {
			return UsageError{errors.New(msg)}
		}
		return nil
	}
}

// root is the command at the top of c's table.
func (c *Command) root() *Command {
	for c.parent != nil {
		c = c.parent
	}
	return c
}

// Walk calls f for c and every command below it, hidden ones included.
func (c *Command) Walk(f func(*Command)) {
	f(c)
	for _, s := range c.children() {
		s.Walk(f)
	}
}

// Parent is the command c is a subcommand of, nil for the root.
func (c *Command) Parent() *Command { return c.parent }

// Flag is the flag --name (or the alias -name) of c, or a persistent
// flag of c or a command above it; nil when there is none.
func (c *Command) Flag(name string) *flag.Flag {
	f, _ := c.lookup(name)
	return f
}

// HasFlag reports whether --name (or the alias -name) is a flag of c.
func (c *Command) HasFlag(name string) bool {
	return name == "help" || name == "h" || c.Flag(name) != nil
}
