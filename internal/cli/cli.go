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
// a flag: in.Changed("nice"). An error wrapped in UsageError is a wrong
// command line (corepin exits 2 and points to the command's help).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
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
	// OwnSignals: the command handles SIGINT and SIGTERM itself.
	OwnSignals bool
	// CancelOnSignals (on the root) cancels the context of a command
	// without OwnSignals on SIGINT or SIGTERM.
	CancelOnSignals bool

	Args func(args []string) error                 // checks the positional arguments
	Run  func(in *Invocation, args []string) error // nil for a group of subcommands

	commands []*Command
	parent   *Command
	build    func() *Command // a Lazy entry's constructor

	fs          *flag.FlagSet
	aliases     map[string]string   // one-letter name -> flag name
	completions map[string][]string // flag name -> values to complete
}

// An Invocation is what a command's Run sees besides its arguments.
type Invocation struct {
	Ctx            context.Context
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	set            map[string]bool // flags given on the command line
}

// Changed reports whether the flag was given on the command line.
func (in *Invocation) Changed(name string) bool { return in.set[name] }

// Flags returns the command's flag set, made on first use.
func (c *Command) Flags() *flag.FlagSet {
	if c.fs == nil {
		c.fs = flag.NewFlagSet(c.Name(), flag.ContinueOnError)
		c.fs.SetOutput(io.Discard)
	}
	return c.fs
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
	if c.CancelOnSignals && !cmd.OwnSignals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
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
	pos, set := args, map[string]bool{}
	if !cmd.Raw {
		var err error
		pos, set, err = cmd.parse(args)
		if errors.Is(err, errHelp) {
			cmd.help(stdout)
			return nil
		}
		if err != nil {
			return UsageError{err}
		}
	}
	if cmd.Run == nil { // a group: its help
		if len(pos) > 0 {
			return UsageError{fmt.Errorf("unknown command %q for %q", pos[0], cmd.Path())}
		}
		cmd.help(stdout)
		return nil
	}
	if cmd.Args != nil {
		if err := cmd.Args(pos); err != nil {
			return err
		}
	}
	return cmd.Run(&Invocation{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, set: set}, pos)
}

// resolve walks the subcommand names at the front of args.
func (c *Command) resolve(args []string) (*Command, []string, error) {
	cmd := c
	for len(cmd.commands) > 0 && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub := cmd.find(args[0])
		if sub == nil {
			return nil, nil, UsageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.Path())}
		}
		cmd, args = sub, args[1:]
	}
	return cmd, args, nil
}

// parse sets the flags in args and returns the positional arguments and the
// names of the flags that were given.
func (c *Command) parse(args []string) (pos []string, set map[string]bool, err error) {
	fs := c.Flags()
	set = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), set, nil
		}
		if len(a) < 2 || a[0] != '-' {
			if c.StopAtArgs {
				return append(pos, args[i:]...), set, nil
			}
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		if long, ok := c.aliases[name]; ok {
			name = long
		}
		f := fs.Lookup(name)
		if f == nil || strings.HasPrefix(a, "---") || name == "" {
			if name == "help" || name == "h" {
				return nil, nil, errHelp
			}
			flagText, _, _ := strings.Cut(a, "=")
			return nil, nil, fmt.Errorf("unknown flag %s", flagText)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && !hasValue {
			value = "true"
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, nil, fmt.Errorf("invalid value %q for --%s: %v", value, name, flagError(f, err))
		}
		set[name] = true
	}
	return pos, set, nil
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	defer fmt.Fprintf(tw, "  -h, --help\tthis help\n")
	if c.fs == nil {
		return
	}
	c.fs.VisitAll(func(f *flag.Flag) {
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

// Find walks the subcommand names at the front of args, as Execute does,
// and returns the command they name and the rest of the arguments.
func (c *Command) Find(args []string) (*Command, []string, error) { return c.resolve(args) }

// Check parses a command line as Execute would, without running anything:
// the command, its flags and its positional arguments.
func (c *Command) Check(args []string) error {
	cmd, rest, err := c.resolve(args)
	if err != nil || cmd.Raw {
		return err
	}
	pos, _, err := cmd.parse(rest)
	switch {
	case errors.Is(err, errHelp):
		return nil
	case err != nil:
		return err
	case cmd.Run == nil && len(pos) > 0:
		return fmt.Errorf("unknown command %q for %q", pos[0], cmd.Path())
	case cmd.Args != nil:
		return cmd.Args(pos)
	}
	return nil
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

// HasFlag reports whether --name (or the alias -name) is a flag of c.
func (c *Command) HasFlag(name string) bool {
	if long, ok := c.aliases[name]; ok {
		name = long
	}
	return name == "help" || name == "h" || (c.fs != nil && c.fs.Lookup(name) != nil)
}
