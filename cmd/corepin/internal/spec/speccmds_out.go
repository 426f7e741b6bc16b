package spec

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

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

// timingLines are the lines of speccmds.out that are read (the others
// are left alone), each with its reader, given its regexp's submatches.
// They are compiled on first use: compiled as the package is initialised,
// with the package's other regexps, they cost every corepin command,
// exec --replace included, 0.2 ms before its main ran.
var timingLines = sync.OnceValue(func() []timingLine {
	return []timingLine{
		{regexp.MustCompile(`^child started:\s*(\d+),\s*(\d+),\s*(\d+),\s*pid=(\d+),\s*'(.*)'\s*$`), (*Timings).started},
		{regexp.MustCompile(`^child finished:\s*(\d+),\s*(\d+),\s*(\d+),\s*sec=(\d+),\s*nsec=(\d+),\s*pid=(\d+),\s*rc=(\d+)\s*$`), (*Timings).finished},
		{regexp.MustCompile(`^\s*timer ticks over every (\d+) ns`), func(t *Timings, m []string) (err error) {
			t.TickNS, err = strconv.ParseInt(m[1], 10, 64)
			return err
		}},
		{regexp.MustCompile(`^runs elapsed time:\s*(\d+),\s*(\d+)`), func(t *Timings, m []string) error {
			ns, err := unixNS(m[1], m[2])
			t.RunsElapsedNS = &ns
			return err
		}},
		{regexp.MustCompile(`^specinvoke exit: rc=(-?\d+)`), func(t *Timings, m []string) error {
			rc, err := atoi(m[1])
			t.ExitRC = &rc
			return err
		}},
	}
})

// timingLine is one line of speccmds.out that is read, and its reader.
type timingLine struct {
	re   *regexp.Regexp
	read func(t *Timings, m []string) error
}

// ParseTimings reads a speccmds.out.
func ParseTimings(data []byte) (*Timings, error) {
	if len(data) > maxCmdFileSize {
		return nil, fmt.Errorf("larger than %d MiB: not a speccmds.out", maxCmdFileSize>>20)
	}
	t := &Timings{}
	for i, line := range strings.Split(string(data), "\n") {
		if len(t.Started)+len(t.Finished) > 2*maxCmdEntries {
			return nil, fmt.Errorf("line %d: more than %d commands", i+1, maxCmdEntries)
		}
		if err := t.line(strings.TrimRight(line, "\r")); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	if len(t.Started) == 0 {
		return nil, errors.New("no \"child started\" line: not a speccmds.out")
	}
	return t, nil
}

// line reads one line, if it is one of those read.
func (t *Timings) line(line string) error {
	for _, l := range timingLines() {
		if m := l.re.FindStringSubmatch(line); m != nil {
			return l.read(t, m)
		}
	}
	return nil
}

// started reads "child started: COPY, SEC, NSEC, pid=PID, 'COMMAND'".
func (t *Timings) started(m []string) error {
	copyNum, err1 := atoi(m[1])
	at, err2 := unixNS(m[2], m[3])
	pid, err3 := atoi(m[4])
	t.Started = append(t.Started, ChildStart{Copy: copyNum, UnixNS: at, PID: pid, Command: clipText(m[5])})
	return cmp.Or(err1, err2, err3)
}

// finished reads "child finished: COPY, SEC, NSEC, sec=S, nsec=NS,
// pid=PID, rc=RC".
func (t *Timings) finished(m []string) error {
	copyNum, err1 := atoi(m[1])
	at, err2 := unixNS(m[2], m[3])
	elapsed, err3 := unixNS(m[4], m[5])
	pid, err4 := atoi(m[6])
	rc, err5 := atoi(m[7])
	t.Finished = append(t.Finished, ChildEnd{Copy: copyNum, UnixNS: at, ElapsedNS: elapsed, PID: pid, RC: rc})
	return cmp.Or(err1, err2, err3, err4, err5)
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
