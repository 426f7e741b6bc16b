//go:build linux && cgo

package cgotest

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// The test binary doubles as a helper process: with COREPIN_NATIVE_HELPER
// set it runs the scripted requests through both libraries and prints the
// two reports. The privilege tests run it as nobody.
func TestMain(m *testing.M) {
	if os.Getenv("COREPIN_NATIVE_HELPER") == "reuse" {
		reuseHelper()
		os.Exit(0)
	}
	if name := os.Getenv("COREPIN_NATIVE_HELPER"); name != "" {
		cOnly := strings.HasPrefix(name, "c:")
		name = strings.TrimPrefix(name, "c:")
		var cpu int
		fmt.Sscan(os.Getenv("COREPIN_NATIVE_CPU"), &cpu)
		sc, ok := scriptByName(name, cpu)
		if !ok {
			fmt.Fprintf(os.Stderr, "no script %q\n", name)
			os.Exit(2)
		}
		var c, g []byte
		var err error
		if cOnly {
			c, err = cReport(sc)
		} else {
			c, g, err = bothReports(sc)
		}
		out := map[string]any{"c": json.RawMessage(orNull(c)), "go": json.RawMessage(orNull(g)), "err": errText(err)}
		json.NewEncoder(os.Stdout).Encode(out)
		os.Exit(0)
	}
	startBuild()
	code := m.Run()
	cleanupBuilds()
	os.Exit(code)
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// script is one request, spelled for both libraries.
type script struct {
	name string
	c    options
	go_  session.Request
}

func intp(v int) *int { return &v }

// scripts are the scripted requests of the report comparison. Each names
// the same thing twice: once for the C library, once for the Go session.
func scripts(cpu int) []script {
	usable := cpusUsable()
	exact, soft, notAccepted := "exact", "soft", "exact+uclamp-min>=1024"
	rule := func(s string) session.Rule {
		r, err := session.ParseRule(s)
		if err != nil {
			panic(err)
		}
		return r
	}
	ui := 5
	uiLevel := qosLevel(ui)
	fifo := int(0 + 1)
	return []script{
		{"geekbench", options{CPU: cpu, Ladder: "geekbench", QoS: -1, Accept: exact},
			session.Request{CPU: cpu, Ladder: session.GeekbenchLadder(), Accept: rule(exact)}},
		{"geekbench-realtime", options{CPU: cpu, Ladder: "geekbench", AllowRealtime: true, QoS: -1, Accept: exact},
			session.Request{CPU: cpu, Ladder: session.GeekbenchLadder(), AllowRealtime: true, Accept: rule(exact)}},
		{"spec-realtime", options{CPU: cpu, Ladder: "spec", AllowRealtime: true, QoS: -1, Accept: soft},
			session.Request{CPU: cpu, Ladder: session.SPECLadder(), AllowRealtime: true, Accept: rule(soft)}},
		{"none-soft", options{CPU: cpu, CPUs: usable, Soft: true, Ladder: "none", QoS: -1, Accept: soft},
			session.Request{CPU: cpu, Group: usable, Mode: evidence.Soft, Ladder: session.AffinityOnly(), Accept: rule(soft)}},
		{"nice5", options{CPU: cpu, Ladder: "custom", Steps: []step{{Nice: intp(5)}}, QoS: -1, Accept: "any+nice>=5"},
			session.Request{CPU: cpu, Ladder: session.CustomLadder(nil, 0, intp(5), nil), Accept: rule("any+nice>=5")}},
		{"fifo-not-allowed", options{CPU: cpu, Ladder: "custom", Steps: []step{{Policy: &fifo, Priority: 1}}, QoS: -1},
			session.Request{CPU: cpu, Ladder: session.CustomLadder(policyp(fifo), 1, nil, nil)}},
		{"uclamp-rule", options{CPU: cpu, Ladder: "geekbench", QoS: -1, Accept: notAccepted},
			session.Request{CPU: cpu, Ladder: session.GeekbenchLadder(), Accept: rule(notAccepted)}},
		{"qos", options{CPU: cpu, Ladder: "none", QoS: ui, Accept: "any"},
			session.Request{CPU: cpu, Ladder: session.AffinityOnly(), QoS: &uiLevel, Accept: rule("any")}},
	}
}

func scriptByName(name string, cpu int) (script, bool) {
	for _, s := range scripts(cpu) {
		if s.name == name {
			return s, true
		}
	}
	return script{}, false
}

// cpusUsable is what this process may use, as corepin reads it.
func cpusUsable() (s cpusetSet) {
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		return s
	}
	return topo.Usable()
}

// cReport runs a script through the C library alone, on a locked thread
// that is thrown away after.
func cReport(sc script) (c []byte, err error) {
	onLockedThread(func() {
		s, e := begin(sc.c)
		if e != nil {
			err = fmt.Errorf("C session: %w", e)
			return
		}
		defer s.free()
		s.finish()
		c = s.reportJSON()
	})
	return c, err
}

// bothReports runs a script through the C library and then through the Go
// session, each on a locked thread of its own that is thrown away after,
// and returns the two reports.
func bothReports(sc script) (c, g []byte, err error) {
	onLockedThread(func() {
		s, e := begin(sc.c)
		if e != nil {
			err = fmt.Errorf("C session: %w", e)
			return
		}
		defer s.free()
		s.finish()
		c = s.reportJSON()
	})
	if err != nil {
		return nil, nil, err
	}
	onLockedThread(func() {
		s, e := session.Begin(sc.go_)
		if e != nil {
			err = fmt.Errorf("Go session: %w", e)
			return
		}
		s.Finish()
		g, err = json.Marshal(s.Report())
	})
	return c, g, err
}

// onLockedThread runs f on a new locked goroutine that exits still
// locked, so that the runtime destroys its thread and a failed restore
// cannot leak.
func onLockedThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		f()
	}()
	<-done
}
