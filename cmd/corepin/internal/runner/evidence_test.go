package runner

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// fill sets every exported field reachable from v to a value that JSON
// writes (no zero value, which omitempty would hide): pointers point,
// lists and maps hold two entries, names and numbers are taken from
// the field's place.
func fill(t *testing.T, v reflect.Value, depth int) {
	if depth > 12 {
		t.Fatalf("%s nests deeper than any evidence", v.Type())
	}
	switch v.Type() {
	case reflect.TypeFor[cpuset.Set]():
		v.Set(reflect.ValueOf(cpuset.Of(1, 3)))
		return
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC)))
		return
	case reflect.TypeFor[sched.Errno]():
		v.Set(reflect.ValueOf(sched.Errno(1))) // EPERM
		return
	case reflect.TypeFor[sched.Policy]():
		v.Set(reflect.ValueOf(sched.FIFO))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fill(t, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), depth+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(t, v.Index(i), depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, depth+1)
		fill(t, e, depth+1)
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("text " + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.25)
	default:
		t.Fatalf("cannot fill a %s", v.Type())
	}
}

// The evidence run.json keeps has every key and value of the producer's
// own JSON: a producer's report with every field set, recorded, writes
// the same JSON as the report itself.
func TestEvidenceKeepsEveryKey(t *testing.T) {
	check := func(name string, producer any, record func() (any, error)) {
		t.Helper()
		fill(t, reflect.ValueOf(producer).Elem(), 0)
		want, err := json.Marshal(producer)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rec, err := record()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s recorded as\n%s\nwant\n%s", name, got, want)
		}
	}
	rep := &launch.Report{}
	check("the launch report", rep, func() (any, error) { return schedulingEvidence(rep), nil })
	topo := &topology.Topology{}
	check("the topology", topo, func() (any, error) { return topologyEvidence(topo), nil })
	tuned := &system.Tuned{}
	check("the tune", tuned, func() (any, error) { return tunedEvidence(tuned), nil })
}

// results names some of its producers' values itself: they are theirs.
func TestEvidenceNamesAsProducersDo(t *testing.T) {
	for _, c := range []struct{ got, want any }{
		{evidence.StartFork, launch.StartFork},
		{evidence.StartLauncher, launch.StartLauncher},
		{evidence.StartThread, launch.StartThread},
		{string(evidence.Exact), string(evidence.Exact)},
		{string(evidence.Soft), string(evidence.Soft)},
		{judge.WatcherCostWarn, evidence.CPUShareWarn},
		{results.FreqSourceCpuinfo, telemetry.SourceProcCpuinfo},
		{results.FreqSourceNone, telemetry.SourceNone},
	} {
		if c.got != c.want {
			t.Errorf("results has %v where its producer has %v", c.got, c.want)
		}
	}
	for _, p := range []sched.Policy{sched.Normal, sched.FIFO, sched.RR, sched.Batch, sched.Idle} {
		if got := evidence.Policy(p.String()).Realtime(); got != p.Realtime() {
			t.Errorf("policy %s: realtime %v, want %v", p, got, p.Realtime())
		}
	}
}

// The run's record of its tune is the tune's own: the reset its Undo
// makes as the run ends (untune, before the results are saved) is in
// run.json.
func TestTuneRecordHoldsTheReset(t *testing.T) {
	tuned := &system.Tuned{Tuned: evidence.Tuned{Result: &evidence.TuneResult{}}}
	r := &suiteRun{cfg: Config{Tune: &Tune{}}, tuned: tuned, res: &results.Run{}}
	r.res.System = &evidence.RunFacts{Tuned: tunedEvidence(r.tuned)}
	tuned.Reset = &evidence.ResetReport{Journal: "/run/corepin/journal", Failed: []evidence.RestoreError{{Err: "EBUSY"}}} // as Undo leaves it
	r.untune()
	if rec := r.res.System.Tuned; rec == nil || rec.Reset == nil || rec.Reset.Journal != "/run/corepin/journal" || len(rec.Reset.Failed) != 1 || rec.Reset.Failed[0].Err != "EBUSY" {
		t.Errorf("recorded tune %+v", r.res.System.Tuned)
	}
	if r.tuned != nil {
		t.Error("the tune is put back twice")
	}
}
