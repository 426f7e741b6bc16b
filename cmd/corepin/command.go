package main

// The command table: every subcommand is a *command built by a newXxxCmd
// function and listed in newRootCmd (root.go). Flags are the standard
// library's flag package; this file adds the rest of a command line (GNU
// style --flag value and --flag=value anywhere among the arguments, "--",
// one-letter aliases, subcommands, help, completion) in a few hundred
// lines, so that the binary needs no CLI library (and no "net" package,
// which would make the default build dynamic).
//
// To add a command:
//
//	func newFooCmd() *command {
//		var n int
//		c := &command{
//			use:     "foo [FILE]",
//			short:   "One line for the command list",
//			long:    "A paragraph for corepin help foo.",
//			example: "  corepin foo --n 3 data.txt",
//			args:    maxArgs(1, "at most one file"),
//		}
//		c.flags().IntVar(&n, "n", 1, "how many `times`") // `times` names the value in the help
//		c.run = func(in *invocation, args []string) error {
//			fmt.Fprintln(in.stdout, n, args)
//			return nil
//		}
//		return c
//	}
//
// then add newFooCmd() to the root's commands. A one-letter alias:
// c.alias("q", "quiet"); words the shell completes for a flag's value:
// c.complete("mode", "exact", "soft"); did the user give a flag:
// in.changed("nice"). Errors wrapped in usageError exit 2 with a hint,
// *exitError picks the exit code, any other error exits 1.

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

// A command is one entry of the command table.
type command struct {
	use     string // the name, then the positional arguments ("run [SUITE.toml]")
	short   string // one line, shown in the parent's command list
	long    string // the help text; short when empty
	example string // example command lines, each indented by two spaces
	hidden  bool   // left out of help and completion

	// stopAtArgs ends the flags at the first positional argument, so
	// that what follows it belongs to another program (exec).
	stopAtArgs bool
	// raw passes every argument through unparsed.
	raw bool
	// ownSignals: the command handles SIGINT and SIGTERM itself.
	ownSignals bool
	// cancelOnSignals (on the root) cancels the context of a command
	// without ownSignals on SIGINT or SIGTERM.
	cancelOnSignals bool

	args func(args []string) error                 // checks the positional arguments
	run  func(in *invocation, args []string) error // nil for a group of subcommands

	commands []*command
	parent   *command

	fs          *flag.FlagSet
	aliases     map[string]string   // one-letter name -> flag name
	completions map[string][]string // flag name -> values to complete
}

// An invocation is what a command's run sees besides its arguments.
type invocation struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	set            map[string]bool // flags given on the command line
}

// changed reports whether the flag was given on the command line.
func (in *invocation) changed(name string) bool { return in.set[name] }

// flags returns the command's flag set, made on first use.
func (c *command) flags() *flag.FlagSet {
	if c.fs == nil {
		c.fs = flag.NewFlagSet(c.name(), flag.ContinueOnError)
		c.fs.SetOutput(io.Discard)
	}
	return c.fs
}

func (c *command) hasFlags() bool {
	n := 0
	if c.fs != nil {
		c.fs.VisitAll(func(*flag.Flag) { n++ })
	}
	return n > 0
}

// alias lets -short stand for --name.
func (c *command) alias(short, name string) {
	if c.aliases == nil {
		c.aliases = map[string]string{}
	}
	c.aliases[short] = name
}

// complete names the values the shell offers for a flag.
func (c *command) complete(name string, words ...string) {
	if c.completions == nil {
		c.completions = map[string][]string{}
	}
	c.completions[name] = words
}

func (c *command) add(subs ...*command) {
	for _, s := range subs {
		s.parent = c
		c.commands = append(c.commands, s)
	}
}

func (c *command) name() string {
	name, _, _ := strings.Cut(c.use, " ")
	return name
}

// path is the command line that reaches c ("corepin experiment qos").
func (c *command) path() string {
	if c.parent == nil {
		return c.name()
	}
	return c.parent.path() + " " + c.name()
}

func (c *command) find(name string) *command {
	for _, s := range c.commands {
		if s.name() == name {
			return s
		}
	}
	return nil
}

// errHelp asks for the command's help instead of running it.
var errHelp = errors.New("help requested")

// execute finds the subcommand that args name, parses its flags and runs it.
func (c *command) execute(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	cmd, args, err := c.resolve(args)
	if err != nil {
		return err
	}
	if c.cancelOnSignals && !cmd.ownSignals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	err = cmd.parseAndRun(ctx, stdin, stdout, stderr, args)
	var ue usageError
	if errors.As(err, &ue) {
		return &commandError{cmd: cmd, err: err}
	}
	return err
}

// A commandError is a usage error with the command it concerns, whose help
// the message points to.
type commandError struct {
	cmd *command
	err error
}

func (e *commandError) Error() string { return e.err.Error() }
func (e *commandError) Unwrap() error { return e.err }

func (cmd *command) parseAndRun(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	pos, set := args, map[string]bool{}
	if !cmd.raw {
		var err error
		pos, set, err = cmd.parse(args)
		if errors.Is(err, errHelp) {
			cmd.help(stdout)
			return nil
		}
		if err != nil {
			return usageError{err}
		}
	}
	if cmd.run == nil { // a group: its help
		if len(pos) > 0 {
			return usageError{fmt.Errorf("unknown command %q for %q", pos[0], cmd.path())}
		}
		cmd.help(stdout)
		return nil
	}
	if cmd.args != nil {
		if err := cmd.args(pos); err != nil {
			return err
		}
	}
	return cmd.run(&invocation{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, set: set}, pos)
}

// resolve walks the subcommand names at the front of args.
func (c *command) resolve(args []string) (*command, []string, error) {
	cmd := c
	for len(cmd.commands) > 0 && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub := cmd.find(args[0])
		if sub == nil {
			return nil, nil, usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.path())}
		}
		cmd, args = sub, args[1:]
	}
	return cmd, args, nil
}

// parse sets the flags in args and returns the positional arguments and the
// names of the flags that were given.
func (c *command) parse(args []string) (pos []string, set map[string]bool, err error) {
	fs := c.flags()
	set = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), set, nil
		}
		if len(a) < 2 || a[0] != '-' {
			if c.stopAtArgs {
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
func (c *command) help(w io.Writer) {
	text := c.long
	if text == "" {
		text = c.short
	}
	fmt.Fprintf(w, "%s\n\nUsage:\n", strings.TrimSpace(text))
	if c.run != nil {
		usage := c.path() + strings.TrimPrefix(c.use, c.name())
		if c.hasFlags() && !strings.Contains(usage, "[flags]") {
			usage += " [flags]"
		}
		fmt.Fprintf(w, "  %s\n", usage)
	}
	if len(c.commands) > 0 {
		fmt.Fprintf(w, "  %s COMMAND [flags]\n\nCommands:\n", c.path())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range c.commands {
			if !s.hidden {
				fmt.Fprintf(tw, "  %s\t%s\n", s.name(), s.short)
			}
		}
		tw.Flush()
	}
	if c.example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(c.example, "\n"))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	c.writeFlags(w)
	if len(c.commands) > 0 {
		fmt.Fprintf(w, "\nRun 'corepin help %sCOMMAND' for a command's help.\n", strings.TrimPrefix(c.path()+" ", "corepin "))
	}
}

// writeFlags lists the flags, with their aliases and non-zero defaults.
func (c *command) writeFlags(w io.Writer) {
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

// newHelpCmd is "corepin help [COMMAND...]".
func newHelpCmd(root *command) *command {
	return &command{
		use:   "help [COMMAND...]",
		short: "Show the help of corepin or of a command",
		run: func(in *invocation, args []string) error {
			cmd, rest, err := root.resolve(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError{fmt.Errorf("unknown command %q for %q", rest[0], cmd.path())}
			}
			cmd.help(in.stdout)
			return nil
		},
	}
}

// listValue is a comma-separated list flag that may be repeated.
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }

func (l *listValue) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// noArgs rejects positional arguments.
func noArgs(args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", args[0])}
	}
	return nil
}

// exactArgs wants n positional arguments, and says why otherwise.
func exactArgs(n int, msg string) func([]string) error {
	return func(args []string) error {
		if len(args) != n {
			return usageError{errors.New(msg)}
		}
		return nil
	}
}

// visible lists the subcommands shown in help and completion.
func (c *command) visible() []*command {
	return slices.DeleteFunc(slices.Clone(c.commands), func(s *command) bool { return s.hidden })
}
