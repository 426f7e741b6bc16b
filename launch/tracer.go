package launch

import (
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/oncpu"
)

// Tracer names who runs on the target CPUs, from the scheduler's switch
// events (a BPF program on sched_switch): a run given one says who took
// the target from the work (Sharing.Preemptors) and keeps the run slice
// by slice (Report.Slices). Loading it costs tens of milliseconds and a
// snapshot around a run well under one, so one serves every run on the
// same CPUs.
type Tracer struct{ t *oncpu.Tracer }

// StartTracer loads the tracer for cpus. It needs the privilege to load
// BPF programs and a kernel that describes its types (BTF); its error
// says which is missing.
func StartTracer(cpus cpuset.Set) (*Tracer, error) {
	t, err := oncpu.Start(cpus)
	if err != nil {
		return nil, err
	}
	return &Tracer{t: t}, nil
}

// Stop unloads the tracer; runs given it afterwards have no names. A nil
// Tracer (none was started) has nothing to stop.
func (t *Tracer) Stop() error {
	if t == nil {
		return nil
	}
	_, err := t.t.Stop()
	return err
}

// oncpu is the tracer launch's tree reads, nil for none.
func (t *Tracer) oncpu() *oncpu.Tracer {
	if t == nil {
		return nil
	}
	return t.t
}
