//go:build linux && cgo

package cgotest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"corepin.dev/corepin/sched"
)

// A second begin on a thread that has a session is NESTED whatever CPU it
// asks for: the first session's mask, which makes any other CPU look
// outside the thread's, is not what is wrong.
func TestNestedSessionOnAnotherCPUIsNested(t *testing.T) {
	requireRoot(t)
	cpu, usable := target(t)
	other := -1
	for _, c := range usable.CPUs() {
		if c != cpu {
			other = c
		}
	}
	if other < 0 {
		t.Skipf("one usable CPU (%s): another CPU is needed", usable)
	}
	onLockedThread(func() {
		first, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("begin: %d: %s", rc, msg)
		}
		defer first.free()
		second, rc, msg := beginRC(other)
		if second != nil {
			second.finishRC()
			second.free()
		}
		if rc != rcNested || !strings.Contains(msg, "already has an unfinished session") {
			t.Errorf("a second begin at CPU %d beside a session at CPU %d = %d (%s), want COREPIN_ERR_NESTED (%d)", other, cpu, rc, msg, rcNested)
		}
		if rc := first.finishRC(); rc != rcOK {
			t.Errorf("finish = %d", rc)
		}
	})
}

// corepin_session_free of a session that was not finished finishes it on
// its own thread: the thread is put back, nothing is tainted.
func TestFreeWithoutFinishPutsTheThreadBack(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	onLockedThread(func() {
		tid := sched.Gettid()
		before := stateOf(t, tid)
		s, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("begin: %d: %s", rc, msg)
		}
		if stateOf(t, tid).same(before) {
			t.Fatal("the session changed nothing to put back")
		}
		s.free()
		if got := stateOf(t, tid); !got.same(before) {
			t.Errorf("after free without finish the thread is %+v, was %+v", got, before)
		}
		if why := taintWhy(); why != "" {
			t.Errorf("tainted: %s", why)
			clearTaint()
		}
	})
}

// A session freed from another thread (a C++ ThreadSession destroyed
// there) cannot put its thread back from there: the process says so in
// its taint, naming the thread, and refuses other threads' sessions; the
// owner's next begin puts back what the session found before it captures,
// so that its own finish restores the thread as it was at first, and the
// taint ends.
func TestSessionFreedFromAnotherThread(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	defer func() {
		if tainted() {
			clearTaint()
		}
	}()
	onLockedThread(func() {
		tid := sched.Gettid()
		before := stateOf(t, tid)
		s, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("begin: %d: %s", rc, msg)
		}
		during := stateOf(t, tid)
		onOtherThread(s.free)
		if got := stateOf(t, tid); !got.same(during) {
			t.Errorf("a free from another thread changed the owner: %+v, the session had set %+v", got, during)
		}
		if why := taintWhy(); !strings.Contains(why, fmt.Sprintf("thread %d's session was freed from another thread", tid)) {
			t.Errorf("the taint says %q; want it to name thread %d", why, tid)
		}
		onOtherThread(func() {
			if o, rc, msg := beginRC(cpu); rc != rcTainted || !strings.Contains(msg, "freed from another thread") {
				if o != nil {
					o.finishRC()
					o.free()
				}
				t.Errorf("another thread's begin = %d (%s), want COREPIN_ERR_TAINTED naming the abandoned session", rc, msg)
			}
		})
		again, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("the owner's next begin = %d: %s", rc, msg)
		}
		if why := taintWhy(); why != "" {
			t.Errorf("still tainted after the owner's begin put it back: %s", why)
		}
		if rc := again.finishRC(); rc != rcOK {
			t.Fatalf("finish = %d", rc)
		}
		again.free()
		if got := stateOf(t, tid); !got.same(before) {
			t.Errorf("after the next session the thread is %+v, was %+v at first: the changed state was captured as the original", got, before)
		}
	})
	// Freed from another thread, then its thread ends: what it changed
	// ended with the thread, and the taint with it.
	began, freed := make(chan *cSession), make(chan struct{})
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
		s, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Errorf("begin: %d: %s", rc, msg)
		}
		began <- s
		<-freed
	}()
	s := <-began
	if s == nil {
		return
	}
	tid := s.tid()
	s.free()
	if !tainted() {
		t.Error("a session freed from another thread while its thread lives did not taint")
	}
	close(freed)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); os.IsNotExist(err) {
			break
		}
		runtime.Gosched()
	}
	if why := taintWhy(); why != "" {
		t.Errorf("tainted by a session whose thread has ended: %s", why)
	}
}

// corepin_pick_target fails, as the header says (-1), where the sysfs
// root names no CPUs.
func TestPickTargetWithoutSysfsFails(t *testing.T) {
	if got := pickTargetIn(filepath.Join(t.TempDir(), "nonexist")); got != -1 {
		t.Errorf("corepin_pick_target of a root that does not exist = %d, want -1", got)
	}
}

// A C++ ThreadSession destroyed on another thread leaves its owner as the
// session set it (only the owner can restore), says so in the taint, and
// the owner's next session puts the thread back as it was at first
// (testdata/thread_session.cpp, built with the sanitized example).
func TestThreadSessionDestroyedOnAnotherThread(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	example(t) // the build
	out, err := exec.Command(built.threadSession, fmt.Sprint(cpu)).Output()
	if err != nil {
		t.Fatalf("thread_session: %v %s", err, out)
	}
	type state struct {
		Nice int    `json:"nice"`
		CPUs string `json:"cpus"`
	}
	var r struct {
		TID           int    `json:"tid"`
		Before        state  `json:"before"`
		During        state  `json:"during"`
		Freed         state  `json:"freed"`
		After         state  `json:"after"`
		Taint         string `json:"taint"`
		TaintAfter    string `json:"taint_after"`
		AgainBegan    int    `json:"again_began"`
		AgainFinished int    `json:"again_finished"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.During == r.Before {
		t.Fatalf("the session changed nothing: %s", out)
	}
	if r.Freed != r.During || !strings.Contains(r.Taint, fmt.Sprintf("thread %d's session was freed from another thread", r.TID)) {
		t.Errorf("destroyed on another thread: the owner is %+v (the session set %+v), taint %q; want it unchanged and said", r.Freed, r.During, r.Taint)
	}
	if r.AgainBegan != 1 || r.AgainFinished != 1 || r.After != r.Before || r.TaintAfter != "" {
		t.Errorf("the owner's next session: began %d, finished %d, the thread %+v (was %+v), taint %q; want it put back and untainted",
			r.AgainBegan, r.AgainFinished, r.After, r.Before, r.TaintAfter)
	}
}
