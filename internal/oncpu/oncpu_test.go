package oncpu

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestProcesses(t *testing.T) {
	a := Account{Tasks: []Task{
		{PID: 10, TID: 11, Comm: "worker", CPU: 1, OnCPU: 5 * time.Millisecond, Waited: time.Millisecond},
		{PID: 10, TID: 10, Comm: "main", CPU: 1, OnCPU: 2 * time.Millisecond},
		{PID: 10, TID: 11, Comm: "worker", CPU: 2, OnCPU: 3 * time.Millisecond},
		{PID: 20, TID: 21, Comm: "a", CPU: 1, OnCPU: 4 * time.Millisecond},
		{PID: 20, TID: 22, Comm: "b", CPU: 1, OnCPU: 6 * time.Millisecond, Waited: 2 * time.Millisecond},
		{PID: 30, TID: 30, Comm: "lone", CPU: 1, OnCPU: time.Millisecond},
	}}
	want := []Process{
		{PID: 20, Comm: "b", Threads: 2, OnCPU: 10 * time.Millisecond, Waited: 2 * time.Millisecond},
		{PID: 10, Comm: "main", Threads: 2, OnCPU: 10 * time.Millisecond, Waited: time.Millisecond},
		{PID: 30, Comm: "lone", Threads: 1, OnCPU: time.Millisecond},
	}
	// Equal times list by PID.
	want[0], want[1] = want[1], want[0]
	if got := a.Processes(); !reflect.DeepEqual(got, want) {
		t.Errorf("Processes() =\n%+v\nwant\n%+v", got, want)
	}
	notTen := func(pid int) bool { return pid == 10 }
	if got := a.Top(1, notTen); len(got) != 1 || got[0].PID != 20 {
		t.Errorf("Top(1, not 10) = %+v, want PID 20", got)
	}
	if got := a.Top(5, nil); len(got) != 3 {
		t.Errorf("Top(5, nil) has %d processes, want all 3", len(got))
	}
	if got := a.Top(0, nil); len(got) != 0 {
		t.Errorf("Top(0, nil) = %+v, want none", got)
	}
}

func TestSortTasks(t *testing.T) {
	tasks := []Task{{PID: 2, TID: 2, OnCPU: 1}, {PID: 1, TID: 3, OnCPU: 1}, {PID: 1, TID: 1, OnCPU: 5}}
	sortTasks(tasks)
	var order []int
	for _, task := range tasks {
		order = append(order, task.TID)
	}
	if want := []int{1, 3, 2}; !reflect.DeepEqual(order, want) {
		t.Errorf("sorted TIDs %v, want %v", order, want)
	}
}

// Top names the processes that took the most of the watched CPUs, leaving
// out the run's own tree.
func ExampleAccount_Top() {
	a := Account{Tasks: []Task{
		{PID: 100, TID: 100, Comm: "bench", CPU: 1, OnCPU: 900 * time.Millisecond},
		{PID: 200, TID: 200, Comm: "backup", CPU: 1, OnCPU: 70 * time.Millisecond},
		{PID: 300, TID: 301, Comm: "kworker/1:2", CPU: 1, OnCPU: 2 * time.Millisecond},
	}}
	tree := map[int]bool{100: true}
	for _, p := range a.Top(2, func(pid int) bool { return tree[pid] }) {
		fmt.Printf("%d %s %v\n", p.PID, p.Comm, p.OnCPU)
	}
	// Output:
	// 200 backup 70ms
	// 300 kworker/1:2 2ms
}

// The difference of two snapshots is what ran between them: threads that
// did not run since drop out, and a CPU's busy time is the difference.
func TestSince(t *testing.T) {
	ms := time.Millisecond
	earlier := Account{Tasks: []Task{{PID: 1, TID: 1, CPU: 1, OnCPU: 5 * ms}, {PID: 2, TID: 3, CPU: 1, OnCPU: 7 * ms, Waited: ms}},
		Busy: map[int]time.Duration{1: 12 * ms}, Idle: map[int]time.Duration{1: 100 * ms}}
	later := Account{Tasks: []Task{{PID: 1, TID: 1, CPU: 1, OnCPU: 5 * ms}, {PID: 2, TID: 3, CPU: 1, OnCPU: 9 * ms, Waited: 4 * ms}, {PID: 4, TID: 4, CPU: 1, OnCPU: ms}},
		Busy: map[int]time.Duration{1: 15 * ms}, Idle: map[int]time.Duration{1: 150 * ms}}
	d := later.Since(earlier)
	if len(d.Tasks) != 2 || d.Tasks[0].PID != 2 || d.Tasks[0].OnCPU != 2*ms || d.Tasks[0].Waited != 3*ms || d.Tasks[1].PID != 4 {
		t.Errorf("tasks %+v", d.Tasks)
	}
	if d.Busy[1] != 3*ms || d.Idle[1] != 50*ms {
		t.Errorf("busy %v idle %v", d.Busy, d.Idle)
	}
}
