package spec

import (
	"errors"
	"fmt"
	"strings"
)

// speccmds.cmd is runcpu's list of what specinvoke runs in a benchmark's
// run folders (the harness's prep_specrun; specinvoke's reader, whose
// grammar this follows). compare.cmd, the validation's, has the same
// grammar. A line is one of
//
//	-E NAME VALUE      the environment, one variable a line
//	-r                 the redirections are in the commands (command_add_redirect)
//	-N C|N|Z           what a command without input gets as stdin
//	-S N               the delay between copies' starts
//	-b BIND            $BIND of the copy whose -C follows (the rest of the line)
//	-C DIR             a copy's run folder, one per copy
//	[-k] [-c DIR] [-i IN] [-o OUT] [-e ERR] COMMAND
//
// where an option's argument is the next word (words are split at spaces
// and tabs; nothing is quoted) and COMMAND the rest of the line, run with
// /bin/sh -c in the copy's folder. Lines starting with # are comments;
// __END__ ends the file.

// CommandFile is a parsed speccmds.cmd or compare.cmd.
type CommandFile struct {
	Env []EnvVar
	// Redirect: the commands hold their own redirections (-r).
	Redirect bool
	// NoInput is how a command without input is given stdin: "C" (it
	// gets stderr), "N" (/dev/null), "Z" (an empty file).
	NoInput  string
	Copies   []Copy
	Commands []Command
}

// EnvVar is one -E line.
type EnvVar struct{ Name, Value string }

// Copy is one copy's run folder and $BIND.
type Copy struct {
	Bind string
	Dir  string
}

// Command is one workload: what specinvoke runs for each copy, in order.
type Command struct {
	Line int // in the file
	// Input, Output and Error are the files specinvoke connects to the
	// command's stdin, stdout and stderr where it redirects (no -r); with
	// -r the command names them itself, and they are kept for the
	// record. Dir overrides the copy's folder (-c).
	Input, Output, Error, Dir string
	// KeepGoing (-k): a failure does not stop the copy's later commands.
	KeepGoing bool
	Text      string
}

// Limits of a command file: specinvoke's own line buffer, and far more
// variables, copies and commands than a benchmark has.
const (
	maxCmdLine     = 16384
	maxCmdEntries  = 10000
	maxCmdFileSize = 16 << 20
)

// ParseCommandFile reads a speccmds.cmd or compare.cmd.
func ParseCommandFile(data []byte) (*CommandFile, error) {
	if len(data) > maxCmdFileSize {
		return nil, fmt.Errorf("larger than %d MiB: not a command file", maxCmdFileSize>>20)
	}
	p := &cmdParser{f: &CommandFile{}}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "__END__" {
			break
		}
		if err := p.line(i+1, line); err != nil {
			return nil, err
		}
	}
	if len(p.f.Commands) == 0 {
		return nil, errors.New("no command: not a specinvoke command file")
	}
	if len(p.f.Copies) == 0 {
		p.f.Copies = []Copy{{}} // specinvoke runs one copy, in its own folder
	}
	return p.f, nil
}

// cmdParser reads a command file line by line; a -b line's value waits
// for the -C line of its copy.
type cmdParser struct {
	f    *CommandFile
	bind string
}

// line reads one line: options that set the file's or a copy's settings,
// or a command with the files specinvoke connects to it.
func (p *cmdParser) line(n int, line string) error {
	line = strings.TrimRight(line, " \t\r")
	rest := strings.TrimLeft(line, " \t")
	if rest == "" || strings.HasPrefix(rest, "#") {
		return nil
	}
	if len(line) >= maxCmdLine {
		return fmt.Errorf("line %d is longer than specinvoke's %d bytes", n, maxCmdLine)
	}
	if len(p.f.Env)+len(p.f.Copies)+len(p.f.Commands) >= maxCmdEntries {
		return fmt.Errorf("line %d: more than %d entries", n, maxCmdEntries)
	}
	cmd := Command{Line: n}
	isCommand := true
	for strings.HasPrefix(rest, "-") {
		if len(rest) < 2 {
			return fmt.Errorf("line %d: a lone '-'", n)
		}
		opt := rest[1]
		var setting bool
		var err error
		setting, rest, err = p.option(opt, rest[2:], &cmd)
		if errors.Is(err, errUnknownOption) {
			return fmt.Errorf("line %d: unknown option -%c", n, opt)
		}
		if err != nil {
			return fmt.Errorf("line %d: -%c: %w", n, opt, err)
		}
		isCommand = isCommand && !setting
		rest = strings.TrimLeft(rest, " \t")
	}
	if !isCommand {
		return nil
	}
	if rest == "" {
		return fmt.Errorf("line %d: options without a command", n)
	}
	cmd.Text = rest
	p.f.Commands = append(p.f.Commands, cmd)
	return nil
}

// errUnknownOption is an option specinvoke does not have.
var errUnknownOption = errors.New("unknown option")

// option reads one option and its argument from rest: setting says the
// line sets the file's or a copy's settings rather than giving a command.
func (p *cmdParser) option(opt byte, rest string, cmd *Command) (setting bool, after string, err error) {
	switch opt {
	case 'r':
		p.f.Redirect = true
		return true, rest, nil
	case 'S':
		return true, "", nil
	case 'b':
		// The bind value is the rest of the line.
		p.bind = strings.TrimLeft(rest, " \t")
		return true, "", nil
	case 'E':
		return true, "", p.env(rest)
	case 'N':
		p.f.NoInput, after, err = word(rest)
		return true, after, err
	case 'C', 'u':
		var dir string
		dir, after, err = word(rest)
		p.f.Copies = append(p.f.Copies, Copy{Dir: dir, Bind: p.bind})
		p.bind = ""
		return true, after, err
	case 'k':
		cmd.KeepGoing = true
		return false, rest, nil
	}
	files := map[byte]*string{'c': &cmd.Dir, 'i': &cmd.Input, 'o': &cmd.Output, 'e': &cmd.Error}
	to, ok := files[opt]
	if !ok {
		return false, "", errUnknownOption
	}
	*to, after, err = word(rest)
	return false, after, err
}

// env reads an -E line's name and value: the value is the rest of the
// line after the one character that ends the name.
func (p *cmdParser) env(rest string) error {
	name, value, err := word(rest)
	if err != nil {
		return err
	}
	if value != "" {
		value = value[1:]
	}
	p.f.Env = append(p.f.Env, EnvVar{Name: name, Value: value})
	return nil
}

// word splits off an option's argument: after one or more spaces or tabs,
// up to the next.
func word(s string) (arg, rest string, err error) {
	if strings.TrimLeft(s, " \t") == "" {
		return "", "", errors.New("missing argument")
	}
	if s[0] != ' ' && s[0] != '\t' {
		return "", "", errors.New("the option and its argument are not separated by a space")
	}
	s = strings.TrimLeft(s, " \t")
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		return s, "", nil
	}
	return s[:end], s[end:], nil
}
