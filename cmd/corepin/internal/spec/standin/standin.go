// Package standin is a stand-in for SPEC CPU's runcpu and specinvoke in
// corepin's tests, written from SPEC's public documentation and harness
// as ../'s comments cite them: it reads a config's command_add_redirect,
// use_submit_for_speed, bind and submit lines; interpolates ${…}, $[top]
// and runcpu's variables, leaving $BIND and $SPECCOPYNUM to specinvoke;
// sets up run folders (run_<tune>_<size>_<label>.NNNN, the executable in
// copy 0's); writes speccmds.cmd and compare.cmd; runs each copy's
// commands with /bin/sh -c in its folder, timing them with the wall
// clock into speccmds.out as specinvoke does; validates the outputs
// against the reference with a relative tolerance; and writes a raw
// result file with each iteration's verdict, ratio and selection and the
// run's mean. SPEC's suite is licensed: the tests run their own small
// programs through it.
//
// The test binary runs it as a helper process (Dispatch), as the
// project's other helpers, with a plan in a JSON file.
package standin

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
)

// Env names the helper the test binary is asked to be: "runcpu" (with
// the plan's path in PlanEnv) or "compete".
const (
	Env     = "COREPIN_SPEC_STANDIN"
	PlanEnv = "COREPIN_SPEC_STANDIN_PLAN"
	cpuEnv  = "COREPIN_SPEC_STANDIN_CPU"
)

// Plan is one runcpu invocation.
type Plan struct {
	// Top is $[top], the SPEC tree; Config the config file.
	Top, Config string
	// Action is "run" (validate, report) or "setup" (the run folders
	// and command files alone).
	Action string
	// Runmode is "rate" or "speed"; Copies the rate run's copies.
	Runmode    string
	Copies     int
	Iterations int
	// Tune, Size and Label name the run folders; Name the result file
	// ("intrate").
	Tune, Size, Label, Name string
	Benchmarks              []Benchmark
	// Compete runs a busy process at SCHED_FIFO 1 pinned to a CPU during
	// one iteration; Corrupt spoils the output of one iteration's copy 0
	// before it is validated.
	Compete *Hook
	Corrupt *Hook
}

// Benchmark is one benchmark the test built: its program (in
// benchspec/CPU/<Name>/exe), the workloads it runs, and the tolerance its
// outputs are compared with. Inputs and reference outputs lie in
// benchspec/CPU/<Name>/data/<size>/{input,output}, its reference time in
// data/<size>/reftime.
type Benchmark struct {
	Name      string // "901.fib_r"
	Exe       string // the program's name in exe/, without _<tune>.<label>
	Workloads []Workload
	RelTol    float64
}

// Workload is one command of an iteration.
type Workload struct {
	Args   []string
	Input  string // a file of data/<size>/input; "" for none
	Output string // its stdout, compared with data/<size>/output/<Output>
}

// Hook names one iteration of one benchmark, and a CPU.
type Hook struct {
	Benchmark string
	Iteration int
	CPU       int
}

// Dispatch runs the stand-in when the test binary was started as one,
// and exits; otherwise it returns.
func Dispatch() {
	switch os.Getenv(Env) {
	case "runcpu":
		plan, err := readPlan(os.Getenv(PlanEnv))
		if err == nil {
			err = plan.run(os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "runcpu stand-in:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "compete":
		compete()
	}
}

func readPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	return &p, json.Unmarshal(data, &p)
}

// WritePlan writes the plan to a file for the helper.
func (p *Plan) WritePlan(path string) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Command is the stand-in as a process: the test binary exe with the plan
// in path. Its environment is the test's, so that corepin, the same
// binary, runs as the CLI for the commands it starts.
func Command(exe, path string) *exec.Cmd {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), Env+"=runcpu", PlanEnv+"="+path, "COREPIN_AS_CLI=1")
	return cmd
}

// compete is the competitor: on its CPU from birth (launch.StartPinned),
// it takes SCHED_FIFO 1, says so, and then runs 2 ms of its own CPU time
// out of every 4 ms until it is killed, ahead of any fair task there.
func compete() {
	runtime.LockOSThread()
	if err := sched.SetAttr(0, sched.Attr{Policy: sched.FIFO, Priority: 1}); err != nil {
		fmt.Println("refused:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	for {
		start := threadTime()
		for threadTime()-start < 2*time.Millisecond {
		}
		threadSleep(2 * time.Millisecond)
	}
}

// competitor starts the competitor on cpu and waits until it runs at
// FIFO; the error says why it could not.
func competitor(cpu int) (*launch.Pinned, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), Env+"=compete", cpuEnv+"="+strconv.Itoa(cpu))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := launch.StartPinned(cpu, cmd)
	if err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		p.Stop()
		return nil, fmt.Errorf("the competitor on CPU %d: %q %v", cpu, strings.TrimSpace(line), err)
	}
	return p, nil
}

// copyFile copies a file, keeping its mode.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
