package spec

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
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
	f := &CommandFile{}
	bind, haveBind := "", false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if line == "__END__" {
			break
		}
		line = strings.TrimRight(line, " \t\r")
		rest := strings.TrimLeft(line, " \t")
		if rest == "" || strings.HasPrefix(rest, "#") {
			continue
		}
		if len(line) >= maxCmdLine {
			return nil, fmt.Errorf("line %d is longer than specinvoke's %d bytes", n, maxCmdLine)
		}
		if len(f.Env)+len(f.Copies)+len(f.Commands) >= maxCmdEntries {
			return nil, fmt.Errorf("line %d: more than %d entries", n, maxCmdEntries)
		}
		cmd := Command{Line: n}
		isCommand := true
		for strings.HasPrefix(rest, "-") {
			if len(rest) < 2 {
				return nil, fmt.Errorf("line %d: a lone '-'", n)
			}
			opt := rest[1]
			rest = rest[2:]
			var arg string
			var err error
			switch opt {
			case 'k':
				cmd.KeepGoing = true
			case 'r':
				isCommand, f.Redirect = false, true
			case 'S':
				isCommand, rest = false, ""
			case 'b':
				// The bind value is the rest of the line.
				isCommand, bind, haveBind, rest = false, strings.TrimLeft(rest, " \t"), true, ""
			case 'E':
				isCommand = false
				if arg, rest, err = word(rest); err == nil {
					// The value is the rest of the line after the one
					// character that ends the name.
					if rest != "" {
						rest = rest[1:]
					}
					f.Env = append(f.Env, EnvVar{Name: arg, Value: rest})
					rest = ""
				}
			case 'N':
				isCommand = false
				arg, rest, err = word(rest)
				f.NoInput = arg
			case 'C', 'u':
				isCommand = false
				arg, rest, err = word(rest)
				f.Copies = append(f.Copies, Copy{Dir: arg})
				if haveBind {
					f.Copies[len(f.Copies)-1].Bind = bind
				}
				bind, haveBind = "", false
			case 'c':
				cmd.Dir, rest, err = word(rest)
			case 'i':
				cmd.Input, rest, err = word(rest)
			case 'o':
				cmd.Output, rest, err = word(rest)
			case 'e':
				cmd.Error, rest, err = word(rest)
			default:
				return nil, fmt.Errorf("line %d: unknown option -%c", n, opt)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: -%c: %w", n, opt, err)
			}
			rest = strings.TrimLeft(rest, " \t")
		}
		if !isCommand {
			continue
		}
		if rest == "" {
			return nil, fmt.Errorf("line %d: options without a command", n)
		}
		cmd.Text = rest
		f.Commands = append(f.Commands, cmd)
	}
	if len(f.Commands) == 0 {
		return nil, errors.New("no command: not a specinvoke command file")
	}
	if len(f.Copies) == 0 {
		f.Copies = []Copy{{}} // specinvoke runs one copy, in its own folder
	}
	return f, nil
}

// word splits off an option's argument: after one or more spaces or tabs,
// up to the next.
func word(s string) (arg, rest string, err error) {
	if s == "" || (s[0] != ' ' && s[0] != '\t') {
		return "", "", errors.New("the option and its argument are not separated by a space")
	}
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return "", "", errors.New("no argument")
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		return s, "", nil
	}
	return s[:end], s[end:], nil
}

// speccmds.out is specinvoke's record of a run (specinvoke.c, unix.c):
//
//	timer ticks over every 1000 ns
//	child started: 0,	1700000000, 123456000, pid=4242, 'sh corepin.sh'
//	child finished: 0,	1700000352, 429000000, sec=352, nsec=305544000, pid=4242, rc=0
//	runs elapsed time:	       352, 429874000, 352.429874000
//	specinvoke exit: rc=0
//
// Times are gettimeofday's, in seconds and nanoseconds since the epoch
// (microseconds, written as nanoseconds); rc is the wait status, so an
// exit code N is N×256.

// Timings are what speccmds.out says of a run.
type Timings struct {
	// TickNS is the timer's resolution.
	TickNS   int64
	Started  []ChildStart
	Finished []ChildEnd
	// RunsElapsedNS is the whole run's time; ExitRC specinvoke's exit
	// status. Nil when the file does not say (a run that was cut short).
	RunsElapsedNS *int64
	ExitRC        *int
}

// ChildStart is one command's start.
type ChildStart struct {
	Copy    int
	UnixNS  int64
	PID     int
	Command string
}

// ChildEnd is one command's end: when, how long after its start, and its
// wait status.
type ChildEnd struct {
	Copy      int
	UnixNS    int64
	ElapsedNS int64
	PID       int
	RC        int
}

var (
	childStarted  = regexp.MustCompile(`^child started:\s*(\d+),\s*(\d+),\s*(\d+),\s*pid=(\d+),\s*'(.*)'\s*$`)
	childFinished = regexp.MustCompile(`^child finished:\s*(\d+),\s*(\d+),\s*(\d+),\s*sec=(\d+),\s*nsec=(\d+),\s*pid=(\d+),\s*rc=(\d+)\s*$`)
	tick          = regexp.MustCompile(`^\s*timer ticks over every (\d+) ns`)
	runsElapsed   = regexp.MustCompile(`^runs elapsed time:\s*(\d+),\s*(\d+)`)
	invokeExit    = regexp.MustCompile(`^specinvoke exit: rc=(-?\d+)`)
)

// ParseTimings reads a speccmds.out.
func ParseTimings(data []byte) (*Timings, error) {
	if len(data) > maxCmdFileSize {
		return nil, fmt.Errorf("larger than %d MiB: not a speccmds.out", maxCmdFileSize>>20)
	}
	t := &Timings{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimRight(line, "\r")
		if len(t.Started)+len(t.Finished) > 2*maxCmdEntries {
			return nil, fmt.Errorf("line %d: more than %d commands", n, maxCmdEntries)
		}
		var err error
		if m := childStarted.FindStringSubmatch(line); m != nil {
			var s ChildStart
			s.Copy, err = atoi(m[1])
			if err == nil {
				s.UnixNS, err = unixNS(m[2], m[3])
			}
			if err == nil {
				s.PID, err = atoi(m[4])
			}
			s.Command = clipText(m[5])
			t.Started = append(t.Started, s)
		} else if m := childFinished.FindStringSubmatch(line); m != nil {
			var e ChildEnd
			e.Copy, err = atoi(m[1])
			if err == nil {
				e.UnixNS, err = unixNS(m[2], m[3])
			}
			if err == nil {
				e.ElapsedNS, err = unixNS(m[4], m[5])
			}
			if err == nil {
				e.PID, err = atoi(m[6])
			}
			if err == nil {
				e.RC, err = atoi(m[7])
			}
			t.Finished = append(t.Finished, e)
		} else if m := tick.FindStringSubmatch(line); m != nil {
			t.TickNS, err = strconv.ParseInt(m[1], 10, 64)
		} else if m := runsElapsed.FindStringSubmatch(line); m != nil {
			var ns int64
			if ns, err = unixNS(m[1], m[2]); err == nil {
				t.RunsElapsedNS = &ns
			}
		} else if m := invokeExit.FindStringSubmatch(line); m != nil {
			var rc int
			if rc, err = atoi(m[1]); err == nil {
				t.ExitRC = &rc
			}
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if len(t.Started) == 0 {
		return nil, errors.New("no \"child started\" line: not a speccmds.out")
	}
	return t, nil
}

// unixNS joins seconds and nanoseconds, refusing what does not fit.
func unixNS(sec, nsec string) (int64, error) {
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s > 1<<33 {
		return 0, fmt.Errorf("%q is not a time in seconds", sec)
	}
	ns, err := strconv.ParseInt(nsec, 10, 64)
	if err != nil || ns >= 1e9 {
		return 0, fmt.Errorf("%q is not a count of nanoseconds", nsec)
	}
	return s*1e9 + ns, nil
}

// atoi reads a count, refusing what does not fit an int.
func atoi(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v > 1<<31 || v < -(1<<31) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}
