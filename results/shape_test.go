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
