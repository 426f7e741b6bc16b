package standin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// commandFile is what specinvoke reads of speccmds.cmd: the copies'
// folders and $BIND values, and the commands with the files it connects
// (specinvoke.c's reader; arguments are words, the -b value and a
// command the rest of the line).
type commandFile struct {
	redirect bool // -r: the commands redirect themselves
	env      []string
	copies   []struct{ bind, dir string }
	commands []invocation
}

type invocation struct{ in, out, err, text string }

func readCommandFile(path string) (*commandFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &commandFile{}
	bind := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c invocation
		for strings.HasPrefix(line, "-") {
			opt := line[1]
			rest := strings.TrimLeft(line[2:], " \t")
			word, after, _ := strings.Cut(rest, " ")
			switch opt {
			case 'r':
				f.redirect, line = true, rest
				continue
			case 'b':
				bind, line = rest, ""
				continue
			case 'E':
				f.env, line = append(f.env, word+"="+after), ""
				continue
			case 'C':
				f.copies = append(f.copies, struct{ bind, dir string }{bind, word})
				bind = ""
			case 'i':
				c.in = word
			case 'o':
				c.out = word
			case 'e':
				c.err = word
			case 'N', 'k':
				if opt == 'k' {
					after = rest
				}
			default:
				return nil, fmt.Errorf("%s: option -%c", path, opt)
			}
			line = strings.TrimLeft(after, " \t")
		}
		if line != "" {
			c.text = line
			f.commands = append(f.commands, c)
		}
	}
	return f, nil
}

// invoke is specinvoke: every copy runs the commands in turn, each with
// /bin/sh -c in its folder after $BIND and $SPECCOPYNUM are replaced in
// its text, timed by the wall clock around fork and wait (gettimeofday:
// microseconds), into speccmds.out beside speccmds.cmd; a failure stops
// every copy's next commands (-q). A copy of speccmds.out is kept for the
// test, as runcpu keeps it in its log.
func (p *Plan) invoke(it *iteration, dir, lognum string) error {
	cf, err := readCommandFile(filepath.Join(dir, "speccmds.cmd"))
	if err != nil {
		return err
	}
	stdout, err := os.Create(filepath.Join(dir, "speccmds.stdout"))
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(filepath.Join(dir, "speccmds.err"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer stderr.Close()
	var out strings.Builder
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&out, format, a...)
	}
	say("specinvoke stand-in\ntimer ticks over every 1000 ns\n")
	env := childEnv(cf.env)
	failed := false
	var firstStart, lastEnd time.Time
	runsStart := now()
	var wg sync.WaitGroup
	for copyNum, cp := range cf.copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range cf.commands {
				mu.Lock()
				stop := failed
				mu.Unlock()
				if stop {
					return
				}
				text := strings.ReplaceAll(c.text, "$BIND", cp.bind)
				text = strings.ReplaceAll(text, "$SPECCOPYNUM", fmt.Sprint(copyNum))
				cmd := exec.Command("/bin/sh", "-c", text)
				cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = cp.dir, env, stdout, stderr
				if !cf.redirect {
					if err := redirect(cmd, cp.dir, c); err != nil {
						say("error: %v\n", err)
						mu.Lock()
						failed = true
						mu.Unlock()
						return
					}
				}
				start := now()
				if err := cmd.Start(); err != nil {
					say("Can't fork for copy #%d: %v\n", copyNum, err)
					mu.Lock()
					failed = true
					mu.Unlock()
					return
				}
				say("child started: %d,\t%10d, %09d, pid=%d, '%s'\n", copyNum, start.Unix(), start.Nanosecond(), cmd.Process.Pid, text)
				waitErr := cmd.Wait()
				end := now()
				closeFiles(cmd)
				rc := 0
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
					rc = int(ws) // the raw status, as specinvoke writes it
				}
				var exitErr *exec.ExitError
				if waitErr != nil && !errors.As(waitErr, &exitErr) {
					rc = 255 << 8
				}
				el := end.Sub(start)
				say("child finished: %d,\t%10d, %09d, sec=%d, nsec=%d, pid=%d, rc=%d\n", copyNum, end.Unix(), end.Nanosecond(),
					int64(el/time.Second), int64(el%time.Second), cmd.Process.Pid, rc)
				mu.Lock()
				if firstStart.IsZero() || start.Before(firstStart) {
					firstStart = start
				}
				if end.After(lastEnd) {
					lastEnd = end
				}
				if rc != 0 {
					failed = true
					if it.rc == 0 {
						it.rc = rc
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	runs := now().Sub(runsStart)
	say("runs elapsed time:\t%10d, %09d, %d.%09d\n", int64(runs/time.Second), int64(runs%time.Second), int64(runs/time.Second), int64(runs%time.Second))
	rc := 0
	if failed {
		rc = 1
		it.valid = "RE"
		it.errors = append(it.errors, fmt.Sprintf("copy non-zero return code (exit code=%d, signal=%d)", it.rc>>8, it.rc&0x7f))
	}
	say("specinvoke exit: rc=%d\n", rc)
	switch {
	case p.Runmode == "rate" && !firstStart.IsZero():
		it.reported = lastEnd.Sub(firstStart).Seconds()
		it.rateStart, it.rateEnd = seconds(firstStart), seconds(lastEnd)
	case !firstStart.IsZero():
		it.reported = runs.Seconds()
	}
	it.reported = round(it.reported, 6)
	if err := os.WriteFile(filepath.Join(dir, "speccmds.out"), []byte(out.String()), 0o644); err != nil {
		return err
	}
	log := filepath.Join(p.Top, "result", "standin."+lognum, fmt.Sprintf("%s.%s.i%d.speccmds.out", it.bench, p.Tune, it.number))
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		return err
	}
	return os.WriteFile(log, []byte(out.String()), 0o644)
}

// now is gettimeofday's reading: the wall clock to the microsecond.
func now() time.Time { return time.Now().Round(0).Truncate(time.Microsecond) }

func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// childEnv is the environment of the commands: the stand-in's own, but
// for what made it the stand-in, with the command file's settings.
func childEnv(set []string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, Env) {
			env = append(env, e)
		}
	}
	return append(env, set...)
}

// redirect connects a command's files as specinvoke does without -r:
// stdin from -i, stdout truncated to -o, stderr appended to -e.
func redirect(cmd *exec.Cmd, dir string, c invocation) error {
	open := func(name string, flag int) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), flag, 0o644)
	}
	var err error
	if c.in != "" {
		if cmd.Stdin, err = open(c.in, os.O_RDONLY); err != nil {
			return err
		}
	}
	if c.out != "" {
		if cmd.Stdout, err = open(c.out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC); err != nil {
			return err
		}
	}
	if c.err != "" {
		if cmd.Stderr, err = open(c.err, os.O_WRONLY|os.O_CREATE|os.O_APPEND); err != nil {
			return err
		}
	}
	return nil
}

// closeFiles closes what redirect opened.
func closeFiles(cmd *exec.Cmd) {
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := f.(*os.File); ok && f != os.Stdout && f != os.Stderr && !strings.HasPrefix(filepath.Base(f.Name()), "speccmds.") {
			f.Close()
		}
	}
}
