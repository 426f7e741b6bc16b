package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/session"
)

// QoSConfig is the QoS experiment (after the HarmonyOS high-load example of
// docs/experiments.md): a key thread computes
// Fibonacci on a CPU that N CPU-bound threads keep busy, once at each QoS
// level, again with the load in sessions of its own, and again without the
// load. The load of other sessions is what a user's other terminals run:
// where autogroup is on, the kernel shares the CPU between sessions before
// it looks at nice, so the levels hold there only because corepin gives
// the key thread a cpu cgroup of its nice value's weight.
type QoSConfig struct {
	CPU    int
	Levels []qos.Level // in order, lowest first; the first and last are compared
	Load   int         // load threads on the CPU
	Fib    int         // the key thread computes fib(Fib)
	// SizeFib makes Fib the most the key thread computes: it computes
	// the smallest fib(n), from QuickFibFrom up, that lasts WorkTicks of
	// the kernel's ticks on CPU (see sizeFib).
	SizeFib    bool
	Runs       int
	NoLoad     bool   // run only the unloaded condition
	OnlyLoaded bool   // run only the loaded conditions
	Self       string // the corepin executable, for the load processes
}

// QoSLevel is one level's results.
type QoSLevel struct {
	Name             string    `json:"name"`
	Level            int       `json:"level"`
	LoadedMs         []float64 `json:"loaded_ms"`
	UnloadedMs       []float64 `json:"unloaded_ms"`
	MedianMsLoaded   *float64  `json:"median_ms_loaded"`
	MedianMsUnloaded *float64  `json:"median_ms_unloaded"`
	// LoadedApartMs are the times with every load process in a session of
	// its own (setsid).
	LoadedApartMs       []float64 `json:"loaded_apart_ms"`
	MedianMsLoadedApart *float64  `json:"median_ms_loaded_apart"`
	// PriorityScope is what made the key thread's priority act (see
	// evidence.TreeReport).
	PriorityScope string `json:"priority_scope,omitempty"`
	// What the key thread read back at this level, and whether the ladder
	// found a step that held.
	Ladder   string   `json:"ladder"`
	Accepted string   `json:"accepted_step"`
	Readback string   `json:"readback"`
	Restored bool     `json:"restored"`
	Notes    []string `json:"notes,omitempty"`
}

// QoSResult is the experiment's outcome.
type QoSResult struct {
	CPU           int        `json:"cpu"`
	Load          int        `json:"load_threads"`
	Work          string     `json:"work"`
	Runs          int        `json:"runs"`
	Levels        []QoSLevel `json:"levels"`
	Low           string     `json:"low"`
	High          string     `json:"high"`
	RatioLoaded   *float64   `json:"ratio_loaded"`   // median low / median high, under load
	RatioUnloaded *float64   `json:"ratio_unloaded"` // the same without load
	// RatioLoadedApart is the ratio with the load in other sessions.
	RatioLoadedApart *float64 `json:"ratio_loaded_apart"`
	// Published are the published figures this experiment follows, for
	// comparison: fib(34) on a HarmonyOS phone under heavy load, 726.8 ms
	// at background against 323.9 ms at user-interactive (see
	// publishedQoS).
	Published map[string]float64 `json:"published"`
	Notes     []string           `json:"notes"`
	// Interrupted says a signal ended the experiment early.
	Interrupted bool `json:"interrupted"`
}

// RunQoS runs the experiment. Levels are interleaved in a new random order
// in every run, so that drift does not favour one level. A cancelled
// context ends it after the measurement in progress, with the runs done
// so far and Interrupted set.
func RunQoS(ctx context.Context, cfg QoSConfig) (*QoSResult, error) {
	if len(cfg.Levels) < 2 {
		return nil, errors.New("the QoS experiment needs at least two levels")
	}
	if cfg.Runs < 1 || cfg.Fib < 1 || cfg.Load < 0 {
		return nil, errors.New("the QoS experiment needs runs >= 1, fib >= 1 and load >= 0")
	}
	res := &QoSResult{CPU: cfg.CPU, Load: cfg.Load, Runs: cfg.Runs,
		Low: cfg.Levels[0].String(), High: cfg.Levels[len(cfg.Levels)-1].String(),
		Published: publishedQoS(), Notes: []string{}}
	if cfg.SizeFib {
		var note string
		if cfg.Fib, note = sizeFib(cfg.CPU, cfg.Fib); note != "" {
			res.Notes = append(res.Notes, note)
		}
	}
	res.Work = fmt.Sprintf("fib(%d)", cfg.Fib)
	for _, l := range cfg.Levels {
		res.Levels = append(res.Levels, QoSLevel{Name: l.String(), Level: int(l), LoadedMs: []float64{}, UnloadedMs: []float64{}, LoadedApartMs: []float64{}})
	}
	conditions := []condition{loadedHere, loadedApart, unloaded}
	switch {
	case cfg.NoLoad:
		conditions = []condition{unloaded}
	case cfg.OnlyLoaded:
		conditions = []condition{loadedHere, loadedApart}
	}
	for run := -1; run < cfg.Runs && ctx.Err() == nil; run++ { // run -1 is a warm-up, not counted
		for _, cond := range conditions {
			if ctx.Err() != nil {
				break
			}
			var l *load
			if cond != unloaded && cfg.Load > 0 {
				var err error
				if l, err = startLoad(cfg.Self, cpuset.Of(cfg.CPU), cfg.Load, cond == loadedApart); err != nil {
					return nil, fmt.Errorf("starting the load: %w", err)
				}
				time.Sleep(50 * time.Millisecond) // let the load settle on the CPU
			}
			order := rand.Perm(len(cfg.Levels))
			for _, i := range order {
				if ctx.Err() != nil {
					break
				}
				ms, err := res.measure(&res.Levels[i], cfg, cfg.Levels[i])
				if err != nil {
					l.Stop()
					return nil, err
				}
				lv := &res.Levels[i]
				switch {
				case run < 0:
				case cond == loadedHere:
					lv.LoadedMs = append(lv.LoadedMs, ms)
				case cond == loadedApart:
					lv.LoadedApartMs = append(lv.LoadedApartMs, ms)
				default:
					lv.UnloadedMs = append(lv.UnloadedMs, ms)
				}
			}
			l.Stop()
		}
	}
	if ctx.Err() != nil {
		res.Interrupted = true
		res.Notes = append(res.Notes, "interrupted: only the runs that completed are recorded")
	}
	for i := range res.Levels {
		lv := &res.Levels[i]
		lv.MedianMsLoaded, lv.MedianMsUnloaded = medianPtr(lv.LoadedMs), medianPtr(lv.UnloadedMs)
		lv.MedianMsLoadedApart = medianPtr(lv.LoadedApartMs)
	}
	if note := res.tooShort(); note != "" {
		res.Notes = append(res.Notes, note)
	}
	low, high := res.Levels[0], res.Levels[len(res.Levels)-1]
	res.RatioLoaded = ratio(low.MedianMsLoaded, high.MedianMsLoaded)
	res.RatioUnloaded = ratio(low.MedianMsUnloaded, high.MedianMsUnloaded)
	res.RatioLoadedApart = ratio(low.MedianMsLoadedApart, high.MedianMsLoadedApart)
	return res, nil
}

// condition is what shares the key thread's CPU.
type condition int

const (
	loadedHere  condition = iota // the load, in corepin's session
	loadedApart                  // the load, each process in a session of its own
	unloaded
)

// measure runs the key thread once at a level, through a session, and
// returns its time in milliseconds.
func (res *QoSResult) measure(lv *QoSLevel, cfg QoSConfig, level qos.Level) (float64, error) {
	var ms float64
	var sum uint64
	// AnyRule: the report says what each level got; every level runs. The
	// key thread is started as every work is, by launch: corepin's other
	// threads keep off its CPU while it runs.
	rep, err := launch.RunThread(context.Background(), launch.ThreadConfig{Request: session.Request{
		CPU: cfg.CPU, Ladder: session.QoSLadder(level), QoS: &level, Accept: session.AnyRule(),
	}}, func(*session.Session) error {
		// As a command's tree is, the key thread is given the weight of its
		// nice value where autogroup would keep the nice to corepin's
		// session; a thread that cannot be put back fails the experiment.
		scope, note, back := tree.WeighThread("")
		lv.PriorityScope = scope
		if note != "" && !slices.Contains(lv.Notes, note) {
			lv.Notes = append(lv.Notes, note)
		}
		start := time.Now()
		sum = fib(cfg.Fib)
		ms = float64(time.Since(start).Microseconds()) / 1000
		if err := back(); err != nil {
			return fmt.Errorf("putting the key thread back from its cpu cgroup: %w", err)
		}
		return nil
	})
	if rep != nil {
		lv.Ladder = rep.Ladder.Name
		lv.Accepted = "none held"
		if rep.Ladder.AcceptedStep > 0 {
			lv.Accepted = fmt.Sprintf("step %d: %s", rep.Ladder.AcceptedStep, rep.Ladder.Steps[rep.Ladder.AcceptedStep-1].Asked)
		}
		rb := rep.Readback
		lv.Readback = fmt.Sprintf("%s nice %d on CPU %d", rb.Policy, rb.Nice, rb.CPU)
		if rb.Uclamp.Supported && rb.Uclamp.Min != nil {
			lv.Readback += fmt.Sprintf(", uclamp %d/%d", *rb.Uclamp.Min, *rb.Uclamp.Max)
		}
		if rb.QoS != nil {
			lv.Readback += ", QoS " + *rb.QoS
		}
		lv.Restored = rep.Restore.OK
	}
	switch {
	case errors.Is(err, session.ErrRestoreFailed):
		// Without privilege a raised nice value cannot be lowered again.
		// The session destroyed the thread, which deals with it; the
		// measurement stands and the note says what happened.
		note := "the restore after this level was refused (" + err.Error() + "); the thread was destroyed"
		if !slices.Contains(lv.Notes, note) {
			lv.Notes = append(lv.Notes, note)
		}
	case err != nil:
		return 0, err
	}
	if sum != fibAnswer(cfg.Fib) {
		return 0, fmt.Errorf("fib(%d) computed %d: the key thread's answer is wrong", cfg.Fib, sum)
	}
	return ms, nil
}

func fib(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fib(n-1) + fib(n-2)
}

func fibAnswer(n int) uint64 {
	a, b := uint64(0), uint64(1)
	for range n {
		a, b = b, a+b
	}
	return a
}

func medianPtr(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

func ratio(a, b *float64) *float64 {
	if a == nil || b == nil || *b == 0 {
		return nil
	}
	r := *a / *b
	return &r
}
