package session

import (
	"strings"
	"testing"
)

func TestNiceFirst(t *testing.T) {
	var got []string
	l := SPECLadder().NiceFirst()
	for _, s := range l.Steps() {
		got = append(got, s.String())
	}
	want := "other + nice -20 + uclamp 1024/1024, other + nice -20, fifo:1 + uclamp 1024/1024, fifo:1"
	if strings.Join(got, ", ") != want || l.Name() != "spec:nice-first" {
		t.Errorf("%s: %s\nwant %s", l.Name(), strings.Join(got, ", "), want)
	}
	if SPECLadder().Len() != 3 {
		t.Error("NiceFirst changed the named ladder")
	}
	if g := GeekbenchLadder().NiceFirst(); g.Len() != 5 || g.Step(4).String() != "fifo:1 + uclamp 1024/1024" {
		t.Errorf("geekbench: %v", g.Steps())
	}
	if a := AffinityOnly().NiceFirst(); a.Name() != "none" {
		t.Errorf("a ladder without realtime became %s", a.Name())
	}
}
