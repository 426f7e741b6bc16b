package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/guard"
	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results/evidence"
)

func newSystemCmd(g *guard.Guard) *cli.Command {
	c := &cli.Command{
		Use:    "system",
		Device: cli.OnDevice,
		Short:  "Show, tune and reset the machine's condition for measuring (frequency, boost, IRQs, idle, shield)",
		Long: `Show how fit the machine is for measuring on a target CPU, tune it, and put
back exactly what was there. Every change is recorded in a journal before it
is made (/run/corepin/system.json), so that reset restores it even after a
crash.`,
	}
	c.AddCommand(newSystemShowCmd(), newSystemTuneCmd(g), newSystemResetCmd())
	return c
}

func newSystemShowCmd() *cli.Command {
	var (
		tf     targetFlags
		root   string
		asJSON bool
	)
	c := &cli.Command{
		Use:   "show",
		Short: "Show the machine's condition for measuring on the target, line by line",
		Long: `Show the cpufreq policies (driver, governor, frequencies and hardware limits,
boost, energy preference), idle states, isolation, the IRQs that may land on
the target, perf_event_max_sample_rate, ASLR, irqbalance, thermal zones and
cooling devices; each check says whether it is good for measuring on the
target and why. Exit status 0 when tuned, 2 when an important check fails,
1 on an error. It only reads, so it works as any user.`,
		Example: `  corepin system show
  corepin system show --cpus 4-7 --json
  corepin system show --cpu 1 --root ./dump`,
		Args: cli.NoArgs,
	}
	c.Run = func(in *cli.Invocation, _ []string) error {
		cpus, err := tf.measured(root)
		if err != nil {
			return err
		}
		f, err := system.Read(fsroot.Root(root), cpus)
		if err != nil {
			return err
		}
		if asJSON {
			if err := termsafe.WriteJSON(in.Stdout, f); err != nil {
				return err
			}
		} else {
			f.WriteText(in.Stdout)
		}
		if !f.Tuned() {
			return &exitError{code: 2}
		}
		return nil
	}
	tf.register(c)
	c.Flags().StringVar(&root, "root", "/", "read the machine under this `folder` (holding sys/ and proc/)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func newSystemTuneCmd(g *guard.Guard) *cli.Command {
	var (
		tf     targetFlags
		tune   = tuneFlags{guard: g}
		dryRun bool
	)
	c := &cli.Command{
		Use:   "tune",
		Short: "Tune the machine for measuring on the target; the journal keeps the old values",
		Long: `Set the performance governor, lock min = max at one frequency, set the energy
preference to performance and lower perf_event_max_sample_rate, for the
target's cpufreq policies (--all-policies: every policy); --no-boost turns
boost/turbo off, --irqs moves IRQs off the target, --idle disables its deep
idle states, --shield moves every other task off it with a cpuset. Each old
value goes to the journal first, each new one is read back, and a tune that
fails halfway puts back what it did. corepin system reset undoes it all.`,
		Example: `  corepin system tune --cpu 1 --irqs --no-boost
  corepin system tune --freq base --dry-run
  corepin system tune --cpus 4-7 --freq 80% --idle`,
		Args: cli.NoArgs,
	}
	c.Run = func(in *cli.Invocation, _ []string) error {
		cpus, err := tf.measured(tune.root)
		if err != nil {
			return err
		}
		asked := tune.asked(in, cpus)
		m := tune.machine(in)
		if dryRun {
			f, err := system.Read(fsroot.Root(tune.root), cpus)
			if err != nil {
				return err
			}
			if err := system.WriteDryRun(in.Stdout, f, asked.Request()); err != nil {
				return usageError{Err: err}
			}
			return nil
		}
		t, err := system.TuneFor(in.Ctx, m, asked.Request(), "corepin system tune --cpus "+cpus.String()+" "+strings.Join(asked.Words(), " "))
		if err != nil {
			if in.Ctx.Err() != nil {
				return interrupted(in.Ctx, err.Error())
			}
			return err
		}
		if err := t.Keep(); err != nil {
			if uerr := t.Undo(); uerr != nil {
				err = fmt.Errorf("%w; putting the tune back: %v", err, uerr)
			}
			return fmt.Errorf("recording that the tune stands until reset: %w", err)
		}
		t.WriteText(in.Stdout)
		tune.warn(in.Stderr, asked.Request())
		warnUnmoved(in.Stderr, t)
		fmt.Fprintf(in.Stdout, "the old values are in %s; corepin system reset puts them back\n", m.JournalPath())
		return nil
	}
	tf.register(c)
	tune.register(c, false)
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print what would change, change nothing")
	return c
}

func newSystemResetCmd() *cli.Command {
	var tune tuneFlags
	c := &cli.Command{
		Use:   "reset",
		Short: "Put back every value the journal holds, newest first, and verify each",
		Long: `Restore every value that corepin system tune (or a run with --tune or
--shield that did not end cleanly) changed, in reverse order, reading each
back. The journal is removed only when every value came back; what could not
be restored is reported with its errno and stays in the journal.

A journal is applied only when root owns it (or, for a --root tree of
your own, you do), nobody else may write it or its folder, it is no
symbolic link, it was made in this boot, and every file it names lies in
sys/, proc/ or a cgroup mount under the root; otherwise nothing is
written and the reason is given.`,
		Example: `  corepin system reset
  corepin system reset --journal ./tune.json --root ./copy`,
		Args: cli.NoArgs,
	}
	c.Run = func(in *cli.Invocation, _ []string) error {
		rep, err := tune.machine(in).Reset(in.Ctx)
		if rep != nil {
			rep.WriteText(in.Stdout)
		}
		if err != nil && in.Ctx.Err() != nil {
			return interrupted(in.Ctx, err.Error()+"; nothing was put back")
		}
		return err
	}
	c.Flags().StringVar(&tune.root, "root", "/", "the machine is under this `folder`")
	c.Flags().StringVar(&tune.journal, "journal", "", "the journal's `path` (default /run/corepin/system.json under the root)")
	c.Flags().DurationVar(&tune.lockTimeout, "lock-timeout", system.DefaultLockTimeout, "give up when another process holds the journal's lock for this `long`")
	c.Flags().BoolVar(&tune.thisBoot, "this-boot", false, "apply a journal of an older corepin, which records no boot, as one of this boot (the machine has not restarted since)")
	return c
}

// tuneFlags are the flags of a tune, shared by system tune, run and exec.
type tuneFlags struct {
	guard                                  *guard.Guard
	tune, all, noBoost, irqs, idle, shield bool
	freq, governor, journal, root          string
	lockTimeout                            time.Duration
	thisBoot                               bool
}

// register adds the tune flags; run and exec also get --tune itself.
func (f *tuneFlags) register(c *cli.Command, withTune bool) {
	fl := c.Flags()
	if withTune {
		fl.BoolVar(&f.tune, "tune", false, "tune the machine for the run (see corepin system tune) and put it back at the end")
		f.root = "/"
	} else {
		fl.StringVar(&f.root, "root", "/", "the machine is under this `folder`")
	}
	fl.StringVar(&f.freq, "freq", "max", "lock min = max at this `frequency`: max, base, NN% of the hardware maximum, or kHz")
	fl.StringVar(&f.governor, "governor", "performance", "the cpufreq `governor` to set")
	fl.BoolVar(&f.all, "all-policies", false, "tune every cpufreq policy, not only the target's")
	fl.BoolVar(&f.noBoost, "no-boost", false, "turn boost/turbo off")
	fl.BoolVar(&f.irqs, "irqs", false, "move IRQs off the target (the default affinity too)")
	fl.BoolVar(&f.idle, "idle", false, "disable the target's deep idle states")
	fl.BoolVar(&f.shield, "shield", false, "as root, move every other task off the target with a cpuset")
	fl.StringVar(&f.journal, "journal", "", "keep the journal at this `path` (default /run/corepin/system.json)")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", system.DefaultLockTimeout, "give up when another process holds the journal's lock for this `long`")
}

// wanted reports whether run or exec should tune: --tune, or any flag that
// only a tune uses.
func (f *tuneFlags) wanted(in *cli.Invocation) bool {
	for _, name := range []string{"tune", "freq", "governor", "all-policies", "no-boost", "irqs", "idle", "shield"} {
		if in.Changed(name) {
			return true
		}
	}
	return false
}

// asked is the tune the flags ask for on cpus; the frequency and the
// governor only when given (see system.Asked).
func (f *tuneFlags) asked(in *cli.Invocation, cpus cpuset.Set) system.Asked {
	a := system.Asked{CPUs: cpus, AllPolicies: f.all, NoBoost: f.noBoost, IRQs: f.irqs, Idle: f.idle, Shield: f.shield}
	if in.Changed("freq") {
		a.Freq = &f.freq
	}
	if in.Changed("governor") {
		a.Governor = &f.governor
	}
	return a
}

// machine is the machine the flags name; a wait for the journal's lock is
// announced on stderr, so that a person knows why nothing happens.
func (f *tuneFlags) machine(in *cli.Invocation) *system.Machine {
	m := &system.Machine{Root: fsroot.Root(f.root), Journal: f.journal, LockTimeout: f.lockTimeout, ThisBoot: f.thisBoot,
		Waiting: system.SayWaiting(in.Stderr)}
	if f.guard != nil {
		// The guard puts the machine back should corepin be killed
		// before its tune is undone (a system tune, once whole, stands
		// until reset): the tune tells it before the first value changes.
		m.Guard = f.guard
	}
	return m
}

// start tunes for a run or an exec, when asked; the caller defers finish.
func (f *tuneFlags) start(in *cli.Invocation, cpus cpuset.Set, what string) (*system.Tuned, error) {
	if !f.wanted(in) {
		return nil, nil
	}
	asked := f.asked(in, cpus)
	t, err := system.TuneFor(in.Ctx, f.machine(in), asked.Request(), what+" "+strings.Join(asked.Words(), " "))
	if err != nil {
		if in.Ctx.Err() != nil {
			return nil, interrupted(in.Ctx, "nothing was run: "+err.Error())
		}
		return nil, fmt.Errorf("tuning the machine for the run: %w", err)
	}
	f.warn(in.Stderr, asked.Request())
	warnUnmoved(in.Stderr, t)
	return t, nil
}

// warnUnmoved says each IRQ the kernel would not move off the target: the
// rest of the tune holds, and the target still gets these (the tune's
// record, in run.json and the journal, has them too).
func warnUnmoved(w io.Writer, t *system.Tuned) {
	for _, u := range system.UnmovedIRQs(t.Result) {
		fmt.Fprintln(w, "corepin: warning: not moved off the target, which still gets it:", u)
	}
}

// forRun is the tune a run asks for on cpus, nil when none: the run makes
// it as it opens and puts it back as it ends (runner.Tune), and says, a
// line each, what a person must know of it. The machine carries the
// guard, which the tune tells before its first change, so that it puts
// the machine back should corepin be killed.
func (f *tuneFlags) forRun(in *cli.Invocation, cpus cpuset.Set, what string) *runner.Tune {
	if !f.wanted(in) {
		return nil
	}
	asked := f.asked(in, cpus)
	return &runner.Tune{Machine: f.machine(in), Request: asked.Request(), Who: what + " " + strings.Join(asked.Words(), " "),
		Say: func(s string) { fmt.Fprintln(in.Stderr, "corepin: "+s) }}
}

// finish puts the machine back after a run and says what could not be.
func (f *tuneFlags) finish(in *cli.Invocation, t *system.Tuned) {
	if t == nil {
		return
	}
	if err := t.Undo(); err != nil {
		fmt.Fprintf(in.Stderr, "corepin: putting the machine back: %v\n", err)
	}
}

// warnLost says, before the tune is undone, when it was undone under the
// command (run says it in run.json's warnings instead).
func (f *tuneFlags) warnLost(in *cli.Invocation, t *system.Tuned) {
	if w := t.LostWarning(); w != "" {
		fmt.Fprintln(in.Stderr, "corepin: warning:", w)
	}
}

// warn says what would undo the tune while it holds.
func (f *tuneFlags) warn(w io.Writer, req evidence.TuneRequest) {
	if msg := system.IRQWarning(fsroot.Root(f.root), req); msg != "" {
		fmt.Fprintln(w, "corepin: warning:", msg)
	}
}
