package experiment

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEarlierKeysStillRead reads results written before the published
// figures had their own key names: the figures are filled in.
func TestEarlierKeysStillRead(t *testing.T) {
	var q QoSResult
	if err := json.Unmarshal([]byte(`{"cpu": 1, "earlier_key": {"ratio": 2.24}}`), &q); err != nil {
		t.Fatal(err)
	}
	if q.CPU != 1 || q.Published["user_interactive_ms"] != 323.9 {
		t.Errorf("QoS result read as %+v", q)
	}
	var p PartitionResult
	if err := json.Unmarshal([]byte(`{"size": 8, "earlier_ms": {"static": 567}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Size != 8 || p.PublishedMs["static"] != 567 {
		t.Errorf("partition result read as %+v", p)
	}
	// Written again, only the present key appears.
	data, _ := json.Marshal(&p)
	if !strings.Contains(string(data), `"static":567}`) || strings.Contains(string(data), "earlier") {
		t.Errorf("written again: %s", data)
	}
}

func TestPublishedFiguresAreFresh(t *testing.T) {
	a := publishedPartition()
	a["static"] = 1
	if publishedPartition()["static"] != 567 {
		t.Error("editing one copy of the published figures changed the next")
	}
	if r := publishedQoS()["ratio"]; r < 2.24 || r > 2.25 {
		t.Errorf("published QoS ratio %v", r)
	}
}

func TestTextViews(t *testing.T) {
	loaded, unloaded := 700.0, 300.0
	q := &QoSResult{Work: "fib(30)", Low: "background", High: "user-interactive", RatioLoaded: &loaded, Published: publishedQoS(), Notes: []string{"the work was sized"},
		Levels: []QoSLevel{{Name: "background", MedianMsLoaded: &loaded, MedianMsUnloaded: &unloaded, Notes: []string{"a note"}}}}
	var b strings.Builder
	if err := q.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LEVEL  ", "700.0", "700.00× under load, - with the load in other sessions, - without (published, HarmonyOS phone: 2.24× under load)", "note: the work was sized\nnote: background: a note"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("QoS text lacks %q:\n%s", want, b.String())
		}
	}
	third := 0.334
	p := &PartitionResult{Rows: []PartitionRow{{Strategy: "static", MedianMs: 10, VsIdeal: 1.5}, {Strategy: "dynamic", Chunks: 7, MedianMs: 9}}, PublishedMs: publishedPartition(),
		SingleMs: 10, SingleSlowMs: 31, SlowSpeed: &third, SlowSpeedRounds: []float64{third, third, third}, IdealPinnedOverBest: 2}
	b.Reset()
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PUBLISHED I7-1260P MS", "static     10.0       1.50     567", "dynamic/7  9.0        0.00     -",
		"slow CPUs ran at 0.33 of the fast (speed probe, median of 3 rounds; the loop alone: 0.32)", "(ideal for these speeds: 2.00×; published, i7-1260P: 1.67×)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("partition text lacks %q:\n%s", want, b.String())
		}
	}
	p.PinnedOverBestVsIdeal = 0.962
	b.Reset()
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "(ideal for these speeds: 2.00×; 0.96 of it, judged round by round against each round's own speeds; published"; !strings.Contains(b.String(), want) {
		t.Errorf("partition text lacks %q:\n%s", want, b.String())
	}
}
