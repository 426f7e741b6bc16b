package results

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// previousRun is a run.json written by the previous version of corepin,
// with a telemetry note, a watcher error and warnings added by hand so that
// every kind of field is present.
const previousRun = "testdata/previous-run.json"

// TestPreviousRunRoundTrips loads a results folder's run.json of the
// previous version and writes it again: every key and every value must come
// back as it was, so old folders keep working with report and compare.
func TestPreviousRunRoundTrips(t *testing.T) {
	data, err := os.ReadFile(previousRun)
	if err != nil {
		t.Fatal(err)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("loading %s: %v", previousRun, err)
	}
	again, err := json.Marshal(&run)
	if err != nil {
		t.Fatal(err)
	}
	var was, now any
	json.Unmarshal(data, &was)
	json.Unmarshal(again, &now)
	// Keys are added within a version (run states, planned and completed
	// counts, the watcher's ticks): an old file gains them, and loses
	// nothing.
	now = prune(now, was)
	if !reflect.DeepEqual(was, now) {
		wk, nk := keyPaths(was, ""), keyPaths(now, "")
		t.Errorf("run.json does not round-trip\nlost keys: %v\nnew keys: %v", difference(wk, nk), difference(nk, wk))
		for _, p := range differingValues(was, now, "") {
			t.Errorf("value differs at %s", p)
		}
	}
}

// TestRunJSONShape keeps the set of run.json's keys in a golden file: a
// change to the model that renames or drops a key shows up here (go test
// ./results -update rewrites the file after a deliberate addition).
func TestRunJSONShape(t *testing.T) {
	data, err := os.ReadFile(previousRun)
	if err != nil {
		t.Fatal(err)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&run)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(out, &v)
	got := strings.Join(keyPaths(v, ""), "\n") + "\n"
	golden := filepath.Join("testdata", "run-keys.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		t.Errorf("run.json's keys changed\nmissing: %v\nadded: %v", difference(w, g), difference(g, w))
	}
}

// keyPaths lists every key of a decoded JSON value as a dotted path, with
// array elements written as [].
func keyPaths(v any, prefix string) []string {
	seen := map[string]bool{}
	var walk func(v any, prefix string)
	walk = func(v any, prefix string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := prefix + "." + k
				seen[p] = true
				walk(e, p)
			}
		case []any:
			for _, e := range x {
				walk(e, prefix+"[]")
			}
		}
	}
	walk(v, prefix)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func difference(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func differingValues(a, b any, prefix string) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		for k := range am {
			if !reflect.DeepEqual(am[k], bm[k]) {
				out = append(out, differingValues(am[k], bm[k], prefix+"."+k)...)
			}
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		var out []string
		for i := range as {
			if !reflect.DeepEqual(as[i], bs[i]) {
				out = append(out, differingValues(as[i], bs[i], prefix+"[]")...)
			}
		}
		return out
	}
	return []string{prefix}
}

// A warning written as run.json writes it reads back as itself.
func FuzzWarningText(f *testing.F) {
	for _, s := range []string{"run 0: a", "run 12: telemetry: t=0.1s: gap", "run x: y", "run -1: z", "plain", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var w Warning
		w.UnmarshalText([]byte(text))
		data, _ := json.Marshal(w)
		var back Warning
		json.Unmarshal(data, &back)
		if back.Run != w.Run || back.Text != w.Text || back.Kind != "" {
			t.Errorf("%q read as %+v, written %q, read back as %+v", text, w, data, back)
		}
	})
}

// prune drops from now the object keys that were has not.
func prune(now, was any) any {
	switch n := now.(type) {
	case map[string]any:
		w, ok := was.(map[string]any)
		if !ok {
			return now
		}
		out := map[string]any{}
		for k, v := range n {
			if wv, ok := w[k]; ok {
				out[k] = prune(v, wv)
			}
		}
		return out
	case []any:
		w, ok := was.([]any)
		if !ok {
			return now
		}
		out := make([]any, len(n))
		for i := range n {
			if i < len(w) {
				out[i] = prune(n[i], w[i])
			} else {
				out[i] = n[i]
			}
		}
		return out
	}
	return now
}

// TestWarningsJSONShape keeps the keys a warning adds to run.json in a
// golden file, as TestRunJSONShape keeps the rest: the run's own
// warnings are objects of a kind, as its benchmarks' are, and a string an
// older corepin wrote reads as a warning without a kind, written back as
// the string it was.
func TestWarningsJSONShape(t *testing.T) {
	old := `{"schema":"corepin.run/v1","state":"finished","benchmarks":[],"warnings":["machine not tuned","run 3: not a run's"]}`
	var r Run
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatalf("an older run's string warnings: %v", err)
	}
	if len(r.Warnings) != 2 || r.Warnings[0].Text != "machine not tuned" || r.Warnings[0].Kind != "" {
		t.Fatalf("read as %+v", r.Warnings)
	}
	if again, _ := json.Marshal(r.Warnings); string(again) != `["machine not tuned","run 3: not a run's"]` {
		t.Errorf("written back as %s", again)
	}
	share := 0.05
	r.Warnings = append(r.Warnings, Warning{Run: NoRun, Kind: KindMachine, Severity: "warn", Text: "machine not tuned"})
	r.Benchmarks = []Benchmark{{Name: "fib", Warnings: []Warning{{Run: 1, Kind: KindShared, Severity: "warn", Text: "others took 5%", Value: &share}}}}
	data, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(data, &back); err != nil || back.Warnings[2] != r.Warnings[2] {
		t.Fatalf("a typed warning read back as %+v (%v)", back.Warnings, err)
	}
	var v any
	json.Unmarshal(data, &v)
	var keys []string
	for _, k := range keyPaths(v, "") {
		if strings.HasPrefix(k, ".warnings") || strings.HasPrefix(k, ".benchmarks[].warnings") {
			keys = append(keys, k)
		}
	}
	got := strings.Join(keys, "\n") + "\n"
	golden := filepath.Join("testdata", "warning-keys.golden")
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./results -run TestWarningsJSONShape -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the warnings' keys changed:\n%s\nwant:\n%s", got, want)
	}
}
