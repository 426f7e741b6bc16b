package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// toy is a small table: "toy greet [NAME]" and "toy run -- CMD".
func toy(got *[]string) *Command {
	root := &Command{Use: "toy", Short: "A toy"}
	var loud bool
	var times int
	var tags ListValue
	greet := &Command{Use: "greet [NAME]", Short: "Greet", Example: "  toy greet -l bob", Args: MaxArgs(1, "at most one name")}
	greet.Flags().BoolVar(&loud, "loud", false, "shout")
	greet.Alias("l", "loud")
	greet.Flags().IntVar(&times, "times", 1, "how many `times`")
	greet.Flags().Var(&tags, "tag", "`tags`")
	greet.Run = func(in *Invocation, args []string) error {
		*got = append(append([]string{}, args...), strings.Join(tags, "+"))
		if loud {
			*got = append(*got, "loud")
		}
		if in.Changed("times") {
			*got = append(*got, "times set")
		}
		return nil
	}
	run := &Command{Use: "run CMD...", StopAtArgs: true, Run: func(in *Invocation, args []string) error {
		*got = args
		return nil
	}}
	run.Flags().Bool("x", false, "")
	root.AddCommand(greet, run, HelpCommand(root))
	return root
}

func TestExecute(t *testing.T) {
	tests := []struct {
		args []string
		want string // the run's record, or the error
	}{
		{[]string{"greet", "bob", "-l", "--tag=a,b", "--tag", "c"}, "bob a+b+c loud"},
		{[]string{"greet", "--times", "2"}, " times set"},
		{[]string{"greet", "--", "-l"}, "-l "},
		{[]string{"run", "-x", "ls", "-x", "--", "y"}, "ls -x -- y"},
		{[]string{"greet", "a", "b"}, "error: at most one name"},
		{[]string{"greet", "--times", "x"}, `error: invalid value "x" for --times: parse error, want times`},
		{[]string{"greet", "--nope"}, "error: unknown flag --nope"},
		{[]string{"greet", "--times"}, "error: flag --times needs a value"},
		{[]string{"wave"}, `error: unknown command "wave" for "toy"`},
	}
	for _, tt := range tests {
		var got []string
		var out bytes.Buffer
		err := toy(&got).Execute(context.Background(), nil, &out, &out, tt.args)
		record := strings.Join(got, " ")
		if err != nil {
			record = "error: " + err.Error()
			var ue UsageError
			if !errors.As(err, &ue) {
				t.Errorf("%q: %v is not a usage error", tt.args, err)
			}
		}
		if record != tt.want {
			t.Errorf("toy %q: %q, want %q", tt.args, record, tt.want)
		}
		if _, err := toy(&got).Parse(tt.args); (err == nil) != !strings.HasPrefix(tt.want, "error") {
			t.Errorf("Parse(%q) = %v", tt.args, err)
		}
	}
}

// TestNegativeDurationRefused: a duration flag given a negative value is a
// usage error naming the flag, in every spelling; zero and positive pass.
func TestNegativeDurationRefused(t *testing.T) {
	var wait time.Duration
	cmd := &Command{Use: "wait", Run: func(*Invocation, []string) error { return nil }}
	cmd.Flags().DurationVar(&wait, "wait-online", 0, "how `long`")
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--wait-online", "-1s"}, false},
		{[]string{"--wait-online=-1ns"}, false},
		{[]string{"--wait-online", "-0.5h"}, false},
		{[]string{"--wait-online", "0"}, true},
		{[]string{"--wait-online", "2s"}, true},
	} {
		err := cmd.Execute(context.Background(), nil, &bytes.Buffer{}, &bytes.Buffer{}, tt.args)
		var ue UsageError
		switch {
		case tt.ok && err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case !tt.ok && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "--wait-online: a length of time cannot be negative")):
			t.Errorf("%q: %v, want a usage error saying the duration is negative", tt.args, err)
		}
	}
}

func TestHelp(t *testing.T) {
	var got []string
	for _, args := range [][]string{{"greet", "--help"}, {"help", "greet"}, {"greet", "-h"}} {
		var out bytes.Buffer
		if err := toy(&got).Execute(context.Background(), nil, &out, &out, args); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Usage:\n  toy greet [NAME] [flags]", "Examples:\n  toy greet -l bob", "  -l, --loud", "--times times", "how many times (default 1)", "-h, --help"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: help lacks %q:\n%s", args, want, out.String())
			}
		}
		if len(got) != 0 {
			t.Errorf("help ran the command: %q", got)
		}
	}
	var out bytes.Buffer
	toy(&got).Execute(context.Background(), nil, &out, &out, nil)
	if !strings.Contains(out.String(), "Commands:\n  greet") || !strings.Contains(out.String(), "Run 'toy help COMMAND'") {
		t.Errorf("root help:\n%s", out.String())
	}
}

func TestLazy(t *testing.T) {
	built := map[string]int{}
	lazy := func(name string) *Command {
		return Lazy(name, func() *Command {
			built[name]++
			return &Command{Use: name + " [ARG]", Short: "the " + name, Run: func(*Invocation, []string) error { return nil }}
		})
	}
	root := &Command{Use: "toy"}
	root.AddCommand(lazy("a"), lazy("b"))
	if err := root.Execute(context.Background(), nil, &bytes.Buffer{}, &bytes.Buffer{}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if built["a"] != 1 || built["b"] != 0 {
		t.Errorf("running a built %v", built)
	}
	var out bytes.Buffer
	root.Execute(context.Background(), nil, &out, &out, nil)
	if built["a"] != 1 || built["b"] != 1 || !strings.Contains(out.String(), "b  the b") {
		t.Errorf("the help built %v and says:\n%s", built, out.String())
	}
	wrong := &Command{Use: "toy"}
	wrong.AddCommand(Lazy("c", func() *Command { return &Command{Use: "d"} }))
	defer func() {
		if recover() == nil {
			t.Error("a Lazy name that is not the command's did not panic")
		}
	}()
	wrong.Walk(func(*Command) {})
}

// TestPersistentFlags: a persistent flag of the root is taken before and
// after a command's name, is left out of the command's line, and the
// root's Intercept sees the parsed line before Run, which it may replace.
func TestPersistentFlags(t *testing.T) {
	var got []string
	var on ListValue
	withOn := func() *Command {
		on = nil
		root := toy(&got)
		root.PersistentFlags().Var(&on, "on", "where")
		root.PersistentFlags().Bool("keep", false, "")
		return root
	}
	root := withOn()
	var seen *Invocation
	root.Intercept = func(in *Invocation) (bool, error) {
		seen = in
		return len(on) > 1, nil
	}
	greet, _, _ := root.resolve([]string{"greet"})
	greet.Output("tag", File)
	args := []string{"--on", "a", "--keep", "greet", "--on=b", "--tag", "x", "-l", "--", "-y"}
	if err := root.Execute(context.Background(), nil, &bytes.Buffer{}, &bytes.Buffer{}, args); err != nil {
		t.Fatal(err)
	}
	if strings.Join(on, ",") != "a,b" || len(got) != 0 {
		t.Errorf("--on %q, ran %q: want a,b and Run replaced", on, got)
	}
	if seen == nil || seen.Cmd.Name() != "greet" || !seen.Changed("on") || !seen.Changed("loud") {
		t.Fatalf("Intercept saw %+v", seen)
	}
	words := seen.Words(func(a Arg) []string {
		if seen.Cmd.OutputOf(a.Flag) == File {
			return []string{"--" + a.Flag, "OUT/" + a.Value}
		}
		return a.Words()
	})
	if want := "greet --tag OUT/x --loud -- -y"; strings.Join(words, " ") != want {
		t.Errorf("words %q, want %q", words, want)
	}
	if seen.Cmd.DeviceUse() != Here {
		t.Errorf("greet's device use %v", seen.Cmd.DeviceUse())
	}
	for _, bad := range [][]string{{"greet", "--on"}, {"--on"}, {"--nope", "greet"}, {"--keep", "wave"}} {
		if _, err := withOn().Parse(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if in, err := withOn().Parse([]string{"--keep", "--on", "c", "run", "-x", "ls", "--on", "d"}); err != nil || strings.Join(on, ",") != "c" || strings.Join(in.Words(nil), " ") != "run --x -- ls --on d" {
		t.Errorf("run: %v, --on %q, words %q: the --on after the command's own arguments is the command's", err, on, in.Words(nil))
	}
}
