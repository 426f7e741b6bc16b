package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/internal/cli"
)

// check parses a command line as corepin would, without running it.
func check(args []string) error {
	_, err := newRootCmd(nil).Parse(args)
	return err
}

// shellWords splits a command line as a POSIX shell would, for the quoting
// examples use: single and double quotes and backslashes. A redirection or
// pipe standing alone ends the command; a shell metacharacter inside a word
// is an error, since a shell would not pass it to corepin.
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
			i++
			word.WriteByte(line[i])
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				word.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case strings.IndexByte("|&;<>()$`*?#", c) >= 0:
			if !inWord && strings.IndexByte("|&;<>#", c) >= 0 {
				return words, nil // the rest is for the shell
			}
			return nil, fmt.Errorf("unquoted %q in %q: a shell would not pass it on", c, line)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// allCommands lists every command of the table, hidden ones included.
func allCommands(root *cli.Command) []*cli.Command {
	var list []*cli.Command
	root.Walk(func(c *cli.Command) { list = append(list, c) })
	return list
}

// TestExamplesParse runs every example of every command's help through the
// parser, so that no example shows a flag that does not exist, a missing
// argument, or a shell character that would not reach corepin.
func TestExamplesParse(t *testing.T) {
	n := 0
	for _, c := range allCommands(newRootCmd(nil)) {
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			words, err := shellWords(line)
			if err != nil {
				t.Errorf("%s example: %v", c.Path(), err)
				continue
			}
			if len(words) == 0 || words[0] != "corepin" {
				t.Errorf("%s example %q does not start with corepin", c.Path(), line)
				continue
			}
			n++
			if err := check(words[1:]); err != nil {
				t.Errorf("%s example %q: %v", c.Path(), line, err)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d examples found", n)
	}
}

var (
	codeSpan    = regexp.MustCompile("`([^`]+)`")
	placeholder = regexp.MustCompile(`\b[A-Z][A-Z_.]+\b`)
)

// TestREADMECommandLinesParse runs every corepin command line of the README
// (in code blocks and code spans) through the parser. A synopsis, with
// [optional] parts, alternatives or PLACEHOLDERS, is checked for its command
// and flag names only.
func TestREADMECommandLinesParse(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			lines = append(lines, strings.TrimSpace(line))
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			lines = append(lines, m[1])
		}
	}
	n := 0
	for _, line := range lines {
		rest, ok := strings.CutPrefix(line, "corepin ")
		if !ok {
			if rest, ok = strings.CutPrefix(line, "go run ./cmd/corepin "); !ok {
				continue
			}
		}
		line = rest
		n++
		if strings.ContainsAny(line, "[|…") || placeholder.MatchString(line) || !strings.Contains(line, "-") {
			if err := checkSynopsis(line); err != nil {
				t.Errorf("README synopsis %q: %v", line, err)
			}
			continue
		}
		words, err := shellWords(line)
		if err != nil {
			t.Errorf("README: %v", err)
			continue
		}
		if err := check(words); err != nil {
			t.Errorf("README command line %q: %v", line, err)
		}
	}
	if n < 10 {
		t.Errorf("only %d corepin command lines found in the README", n)
	}
}

// checkSynopsis checks that a synopsis names a command and only its flags.
func checkSynopsis(line string) error {
	words := strings.Fields(line)
	root := newRootCmd(nil)
	for len(words) > 1 && root.PersistentFlags().Lookup(strings.TrimLeft(words[0], "-")) != nil { // the global --on flags
		words = words[1:]
		if words[0] == "TARGET" || words[0] == "FILE" {
			words = words[1:]
		}
	}
	var names []string
	for len(words) > 0 && regexp.MustCompile(`^[a-z]+$`).MatchString(words[0]) {
		names, words = append(names, words[0]), words[1:]
	}
	for i, w := range words {
		words[i] = strings.Trim(w, "[]")
	}
	var cmd *cli.Command
	root.Walk(func(c *cli.Command) {
		if c.Path() == strings.Join(append([]string{"corepin"}, names...), " ") {
			cmd = c
		}
	})
	if cmd == nil {
		return fmt.Errorf("no command %q", strings.Join(names, " "))
	}
	for _, w := range words {
		if !strings.HasPrefix(w, "-") || w == "--" {
			continue
		}
		if name := strings.TrimLeft(strings.SplitN(w, "=", 2)[0], "-"); !cmd.HasFlag(name) {
			return fmt.Errorf("%s has no flag %s", cmd.Path(), w)
		}
	}
	return nil
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		bad  bool
	}{
		{line: `corepin exec --accept 'exact+uclamp-min>=1024' -- ./bench`, want: []string{"corepin", "exec", "--accept", "exact+uclamp-min>=1024", "--", "./bench"}},
		{line: `corepin exec --accept exact+uclamp-min>=1024 -- ./bench`, bad: true},
		{line: `corepin completion bash > corepin.bash`, want: []string{"corepin", "completion", "bash"}},
		{line: `corepin exec -- sh -c "echo \"hi\""`, want: []string{"corepin", "exec", "--", "sh", "-c", `echo "hi"`}},
		{line: `corepin 'open`, bad: true},
	}
	for _, tt := range tests {
		got, err := shellWords(tt.line)
		if (err != nil) != tt.bad || (!tt.bad && strings.Join(got, "\x00") != strings.Join(tt.want, "\x00")) {
			t.Errorf("shellWords(%q) = %q, %v", tt.line, got, err)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		args []string
		ok   bool
	}{
		{[]string{"run", "suite.toml", "--quick", "-q"}, true},           // flags after the positional argument
		{[]string{"run", "--only=fib,lbm", "--only", "json"}, true},      // = and a repeated list
		{[]string{"exec", "--cpu", "1", "true", "--cpu", "x"}, true},     // after the command, its own flags
		{[]string{"exec", "--nice", "-10", "--", "--cpu", "x"}, true},    // a negative value; -- ends the flags
		{[]string{"exec", "--cpu", "x", "--", "true"}, false},            // not a number
		{[]string{"exec", "--cpu"}, false},                               // no value
		{[]string{"exec", "---cpu", "1", "true"}, false},                 // three dashes
		{[]string{"watch", "-5"}, false},                                 // a negative PID is no PID
		{[]string{"experiment", "partition", "--quick", "--json"}, true}, // a subcommand
		{[]string{"experiment", "nope"}, false},
		{[]string{"help", "experiment", "qos"}, true},
	}
	for _, tt := range tests {
		if err := check(tt.args); (err == nil) != tt.ok {
			t.Errorf("corepin %s: %v", strings.Join(tt.args, " "), err)
		}
	}
}

// TestDurationFlagsRefuseNegative gives every duration flag of every
// command -1s: each is a usage error naming the flag (--wait-online once
// took it, and waited for nothing).
func TestDurationFlagsRefuseNegative(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range allCommands(newRootCmd(nil)) {
		if c.Run == nil {
			continue
		}
		c.Flags().VisitAll(func(f *flag.Flag) {
			if g, ok := f.Value.(flag.Getter); !ok {
				return
			} else if _, ok := g.Get().(time.Duration); !ok {
				return
			}
			seen[f.Name] = true
			args := append(strings.Fields(strings.TrimPrefix(c.Path(), "corepin")), "--"+f.Name, "-1s")
			err := check(args)
			if err == nil || !strings.Contains(err.Error(), "--"+f.Name+": a length of time cannot be negative") {
				t.Errorf("corepin %s: %v", strings.Join(args, " "), err)
			}
		})
	}
	for _, name := range []string{"wait-online", "timeout", "duration", "interval", "period", "watch", "telemetry"} {
		if !seen[name] {
			t.Errorf("no command has a duration flag --%s", name)
		}
	}
	_, errOut, code := corepin(t, "watch", "--period", "-1s", "1")
	if code != exitUsage || !strings.Contains(errOut, `invalid value "-1s" for --period: a length of time cannot be negative`) {
		t.Errorf("watch --period -1s: exit %d, %q", code, errOut)
	}
}

func TestHelp(t *testing.T) {
	for _, c := range allCommands(newRootCmd(nil)) {
		if c.Hidden || c.Parent() == nil {
			continue
		}
		args := append(strings.Fields(strings.TrimPrefix(c.Path(), "corepin ")), "--help")
		out, errOut, code := corepin(t, args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage:\n  "+c.Path()) || !strings.Contains(out, "-h, --help") {
			t.Errorf("corepin %s: exit %d, stderr %q, help:\n%s", strings.Join(args, " "), code, errOut, out)
		}
		viaHelp, _, code := corepin(t, append([]string{"help"}, args[:len(args)-1]...)...)
		if code != 0 || viaHelp != out {
			t.Errorf("corepin help %s differs from --help", strings.Join(args[:len(args)-1], " "))
		}
		if strings.Contains(out, "(default -") {
			t.Errorf("corepin %s shows an internal sentinel as a default:\n%s", strings.Join(args, " "), out)
		}
		if c.Run != nil && c.Example == "" && c.Name() != "help" {
			t.Errorf("%s has no example", c.Path())
		}
	}
	out, _, code := corepin(t)
	if code != 0 || !strings.Contains(out, "exec") || strings.Contains(out, "__complete") || strings.Contains(out, "workload") {
		t.Errorf("corepin alone: exit %d\n%s", code, out)
	}
	out, _, _ = corepin(t, "exec", "--help")
	if !strings.Contains(out, "  -q, --quiet") || !strings.Contains(out, "--watch duration") || !strings.Contains(out, "(default 100ms)") {
		t.Errorf("exec --help lists its flags badly:\n%s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"exec", "--bogus", "--", "true"}, "unknown flag --bogus\nRun 'corepin exec --help' for usage."},
		{[]string{"topo", "--cpu", "1", "--cpus", "0"}, "--cpu and --cpus cannot be combined"},
		{[]string{"topo", "--cpu=one"}, `invalid value "one" for --cpu`},
		{[]string{"experiment", "qos", "--runs"}, "flag --runs needs a value"},
		{[]string{"help", "nope"}, `unknown command "nope" for "corepin"`},
		{[]string{"completion", "tcsh"}, `no completion for "tcsh"`},
	}
	for _, tt := range tests {
		_, errOut, code := corepin(t, tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.msg) {
			t.Errorf("corepin %s: exit %d, %q; want %d and %q", strings.Join(tt.args, " "), code, errOut, exitUsage, tt.msg)
		}
	}
}

func TestCompletionWords(t *testing.T) {
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"ex"}, "exec experiment"},
		{[]string{"experiment", ""}, "partition qos"},
		{[]string{"exec", "--mo"}, "--mode"},
		{[]string{"exec", "--mode", ""}, "exact soft"},
		{[]string{"run", "--only", "f"}, "fib"},
		{[]string{"run", "-q", "--isol"}, "--isolation"},
		{[]string{"report", ""}, ""}, // files, from the shell
	}
	for _, tt := range tests {
		out, _, code := corepin(t, append([]string{"__complete"}, tt.words...)...)
		if got := strings.Join(strings.Fields(out), " "); code != 0 || got != tt.want {
			t.Errorf("completing %q: %q, want %q", tt.words, got, tt.want)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _, code := corepin(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "corepin __complete") {
			t.Errorf("completion %s: exit %d\n%s", shell, code, out)
		}
	}
}
