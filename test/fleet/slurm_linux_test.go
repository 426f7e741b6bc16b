package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
)

// TestMain lets the test binary be a task of a Slurm step: with
// COREPIN_FLEET_STEP set it reports, as JSON on standard output, the CPUs
// Slurm bound it to and what corepin did inside them (step).
func TestMain(m *testing.M) {
	if os.Getenv("COREPIN_FLEET_STEP") != "" {
		os.Exit(step(os.Getenv("COREPIN_FLEET_COREPIN")))
	}
	os.Exit(m.Run())
}

// TestSlurm runs docs/fleet.md's batch script on a real one-node Slurm
// cluster, twice (one node gives one folder a job; the second job's merge
// takes both), after a one-CPU step that checks corepin stays inside
// Slurm's binding. A second slurmd on a 2-CPU machine would run both
// nodes' tasks on the same two CPUs at once, and measure their sharing.
func TestSlurm(t *testing.T) {
	if os.Getenv("COREPIN_SLURM") != "1" {
		t.Skip("starts munged, slurmctld and slurmd on this machine: set COREPIN_SLURM=1 (CI does, after installing Debian's slurm-wlm and munge)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("needs root: slurmd binds tasks and makes cgroups")
	}
	for _, tool := range []string{"munged", "munge", "slurmctld", "slurmd", "sbatch", "srun", "scontrol", "sinfo", "scancel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (apt-get install slurm-wlm munge)", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin := t.TempDir()
	corepin := filepath.Join(bin, "corepin")
	if out, err := exec.Command("go", "build", "-o", corepin, "corepin.dev/corepin/cmd/corepin").CombinedOutput(); err != nil {
		t.Fatalf("building corepin: %v\n%s", err, out)
	}
	start := time.Now()
	c := startCluster(t)
	t.Logf("cluster up in %.1f s: node %s", time.Since(start).Seconds(), c.node)

	t.Run("binding", func(t *testing.T) { checkBinding(t, c, corepin) })
	t.Run("batch script", func(t *testing.T) { checkBatchScript(ctx, t, c, bin, corepin) })
}

// stepReport is what a task of a step saw: its mask and cpuset cgroup,
// and corepin's exec inside them and outside.
type stepReport struct {
	Mask   cpuset.Set `json:"mask"`
	Online cpuset.Set `json:"online"`
	Cgroup string     `json:"cgroup"` // its cpuset cgroup, from /proc/self/cgroup
	// Cpuset is that cgroup's effective CPUs: what the kernel would let a
	// thread of the task widen its mask to.
	Cpuset cpuset.Set `json:"cpuset"`
	// Exec is corepin exec --report's report with the default target;
	// ExecCode its exit status.
	Exec     *launch.Report `json:"exec"`
	ExecCode int            `json:"exec_code"`
	ExecText string         `json:"exec_text"`
	// Outside is corepin exec --cpu N for every online CPU N outside Mask.
	Outside []refusal `json:"outside"`
}

type refusal struct {
	CPU  int    `json:"cpu"`
	Code int    `json:"code"`
	Text string `json:"text"`
}

// step runs as the task: it reads its mask and cgroup, runs corepin exec
// inside, and asks corepin for each CPU outside.
func step(corepin string) int {
	var r stepReport
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var cpus []int
	for cpu := range len(mask) * 64 {
		if mask.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	r.Mask = cpuset.Of(cpus...)
	online, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err == nil {
		r.Online, err = cpuset.Parse(strings.TrimSpace(string(online)))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if own, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(own), "\n") {
			if f := strings.SplitN(line, ":", 3); len(f) == 3 && slices.Contains(strings.Split(f[1], ","), "cpuset") {
				r.Cgroup = f[2]
			}
		}
	}
	if cpus, err := os.ReadFile(filepath.Join("/sys/fs/cgroup/cpuset", r.Cgroup, "cpuset.effective_cpus")); err == nil {
		r.Cpuset, _ = cpuset.Parse(strings.TrimSpace(string(cpus)))
	}
	report := filepath.Join(os.TempDir(), fmt.Sprintf("corepin-step-%d.json", os.Getpid()))
	defer os.Remove(report)
	out, code := run(corepin, "exec", "-q", "--report", report, "--", "true")
	r.ExecCode, r.ExecText = code, out
	if data, err := os.ReadFile(report); err == nil {
		r.Exec = new(launch.Report)
		if err := json.Unmarshal(data, r.Exec); err != nil {
			r.ExecText += "\nreport: " + err.Error()
		}
	}
	for _, cpu := range r.Online.Difference(r.Mask).CPUs() {
		out, code := run(corepin, "exec", "--cpu", strconv.Itoa(cpu), "--", "true")
		r.Outside = append(r.Outside, refusal{CPU: cpu, Code: code, Text: out})
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// run runs a command and returns its output and exit status.
func run(name string, args ...string) (string, int) {
	cmd := exec.Command(name, args...)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil {
		return fmt.Sprintf("%s", err), -1
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// checkBinding runs this test binary as a task of two steps: one CPU
// bound by Slurm (srun --cpus-per-task=1 --cpu-bind=cores), and two CPUs
// allocated of which the task is bound to one (--cpu-bind=map_cpu), so
// that the step's cpuset holds a CPU the task's mask does not. In both,
// corepin's default target and its run cgroup lie inside what Slurm gave
// the task, and every other CPU is refused with exit 2: the second is the
// case where corepin used to widen its mask and escape the binding.
func checkBinding(t *testing.T, c *cluster, corepin string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	online := onlineCPUs(t)
	steps := [][]string{{"--cpus-per-task=1", "--cpu-bind=cores"}}
	if online.Len() >= 2 {
		steps = append(steps, []string{"--cpus-per-task=2", fmt.Sprintf("--cpu-bind=map_cpu:%d", online.First())})
	}
	for _, opts := range steps {
		cmd := c.command("srun", append(opts, self)...)
		cmd.Env = append(cmd.Env, "COREPIN_FLEET_STEP=1", "COREPIN_FLEET_COREPIN="+corepin)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("srun %s: %v\n%s\n%s", strings.Join(opts, " "), err, errOut.String(), c.logs())
		}
		var r stepReport
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("the step printed %q: %v", out, err)
		}
		checkStep(t, strings.Join(opts, " "), r)
	}
}

// checkStep checks what one task saw of its binding and of corepin.
func checkStep(t *testing.T, opts string, r stepReport) {
	t.Helper()
	t.Logf("srun %s: Slurm bound the task to CPU %s of %s, in cpuset cgroup %s (CPUs %s)", opts, r.Mask, r.Online, r.Cgroup, r.Cpuset)
	if r.Mask.Len() != 1 {
		t.Errorf("srun %s bound the task to %s, not one CPU", opts, r.Mask)
	}
	if !regexp.MustCompile(`^/slurm_[^/]+/uid_0/job_\d+/step_\d+`).MatchString(r.Cgroup) {
		t.Errorf("the task's cpuset cgroup is %q, not a Slurm step's", r.Cgroup)
	}
	if r.ExecCode != 0 || r.Exec == nil {
		t.Fatalf("corepin exec in the step: exit %d\n%s", r.ExecCode, r.ExecText)
	}
	if target := r.Exec.Target.CPUs; !target.IsSubsetOf(r.Mask) || !r.Exec.Readback.CPUs.IsSubsetOf(r.Mask) {
		t.Errorf("corepin exec's target %s, read back %s: outside the binding %s", target, r.Exec.Readback.CPUs, r.Mask)
	}
	if tr := r.Exec.Tree; tr == nil || !underCgroup(tr.Cgroup, r.Cgroup) || !tr.CgroupCPUs.IsSubsetOf(r.Mask) {
		t.Errorf("corepin exec's run cgroup %+v does not nest under the step's %s", tr, r.Cgroup)
	}
	if len(r.Outside) == 0 {
		t.Logf("no online CPU outside the binding: nothing to refuse")
	}
	for _, o := range r.Outside {
		want := fmt.Sprintf("CPU %d is outside", o.CPU)
		if r.Cpuset.Contains(o.CPU) {
			// The kernel would let corepin widen its mask to it.
			want = fmt.Sprintf("CPU %d is outside the CPUs this process inherited, %s", o.CPU, r.Mask)
		}
		if o.Code != 2 || !strings.Contains(o.Text, want) {
			t.Errorf("corepin exec --cpu %d under Slurm's binding %s: exit %d, want 2 and %q:\n%s", o.CPU, r.Mask, o.Code, want, o.Text)
		} else {
			t.Logf("corepin exec --cpu %d: exit 2, %s", o.CPU, strings.TrimSpace(strings.SplitN(o.Text, "\n", 2)[0]))
		}
	}
}

// onlineCPUs is the machine's online CPUs.
func onlineCPUs(t *testing.T) cpuset.Set {
	t.Helper()
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		t.Fatal(err)
	}
	set, err := cpuset.Parse(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// underCgroup reports whether one of a run's cgroup folders lies below
// the cpuset cgroup own ("/slurm_vm/uid_0/job_7/step_0").
func underCgroup(dirs []string, own string) bool {
	return own != "" && slices.ContainsFunc(dirs, func(d string) bool {
		return strings.HasPrefix(d, "/sys/fs/cgroup/cpuset"+own+"/")
	})
}

// checkBatchScript submits docs/fleet.md's batch script as written, with
// one node, twice, and checks each job against Slurm's record of it.
func checkBatchScript(ctx context.Context, t *testing.T, c *cluster, bin, corepin string) {
	submit := t.TempDir()
	script := filepath.Join(submit, "fleet.sh")
	if err := os.WriteFile(script, []byte(batchScript(t)), 0o755); err != nil {
		t.Fatal(err)
	}
	var jobs []job
	for range 2 {
		start := time.Now()
		id := c.sbatch(t, submit, []string{bin}, "--nodes=1", script)
		j := c.wait(ctx, t, id)
		out, _ := os.ReadFile(j.stdout)
		t.Logf("job %s: %s, exit %s (the srun step: %s), %.0f s; CPUs %s; its output, less corepin's progress lines:\n%s",
			id, j.state, j.exit, j.derive, time.Since(start).Seconds(), j.cpuIDs, progress.ReplaceAllString(string(out), ""))
		if j.state != "COMPLETED" || j.exit != "0:0" {
			t.Fatalf("job %s: %s, exit %s\n%s", id, j.state, j.exit, c.logs())
		}
		jobs = append(jobs, j)
	}
	folders, _ := filepath.Glob(filepath.Join(submit, "corepin-results", c.node, "*", "run.json"))
	if len(folders) != len(jobs) {
		t.Fatalf("%d results folders for %d jobs: %q", len(folders), len(jobs), folders)
	}
	log := c.slurmdLog(t)
	for _, j := range jobs {
		run := folderOf(t, folders, j.id)
		checkRun(t, run, j, binding(t, log, j.id))
	}
	// The second job merged both folders: its output is the table of two
	// machines, and its page is there.
	out, _ := os.ReadFile(jobs[1].stdout)
	for _, want := range []string{"[1] ", "[2] ", "BENCHMARK", "VS [1]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the second job's merge lacks %q:\n%s", want, out)
		}
	}
	if page, err := os.ReadFile(filepath.Join(submit, "fleet.html")); err != nil || !strings.Contains(string(page), "corepin merge") {
		t.Errorf("fleet.html: %v", err)
	}
	// merge relates the two runs of one job by compare's rule: each cell
	// has a relative figure or says why not.
	cmd := exec.Command(corepin, append([]string{"merge", "--format", "json", "--out", filepath.Join(submit, "again.html")}, filepath.Dir(folders[0]), filepath.Dir(folders[1]))...)
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("corepin merge: %v", err)
	}
	var m results.Merge
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Machines) != 2 || len(m.Benchmarks) == 0 {
		t.Fatalf("merge: %d machines, %d benchmarks", len(m.Machines), len(m.Benchmarks))
	}
	related := 0
	for _, row := range m.Benchmarks {
		c := row.Cells[1]
		switch {
		case c == nil:
			t.Errorf("%s: not in the second run", row.Name)
		case c.Relative != nil:
			related++
		case c.Withheld == "":
			t.Errorf("%s: no relative figure and no reason", row.Name)
		}
	}
	t.Logf("merge: %d of %d benchmarks related to the first run, the rest withheld with their reason", related, len(m.Benchmarks))
}

// progress matches corepin run's progress lines ("[3/70] fib run 2: 20.1 ms").
var progress = regexp.MustCompile(`(?m)^\[\d+/\d+\] .*\n`)

// batchScript is the Slurm batch script of docs/fleet.md, as written.
func batchScript(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## A Slurm cluster")
	_, block, ok2 := strings.Cut(section, "\n```sh\n")
	script, _, ok3 := strings.Cut(block, "\n```")
	if !ok || !ok2 || !ok3 || !strings.HasPrefix(script, "#!/bin/sh") {
		t.Fatal("docs/fleet.md has no sh block under \"## A Slurm cluster\"")
	}
	return script + "\n"
}

// folderOf is the run of the folder whose cpuset was job id's.
func folderOf(t *testing.T, runs []string, id string) *results.Run {
	t.Helper()
	for _, path := range runs {
		r, err := results.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if r.Topology != nil && strings.Contains(r.Topology.CpusetFile, "/job_"+id+"/") {
			return r
		}
	}
	t.Fatalf("no results folder of job %s in %q", id, runs)
	return nil
}

// binding is the CPU mask slurmd's task/affinity gave the job's step, as
// its log says ("_lllp_generate_cpu_bind jobid [7]: mask_cpu,one_thread, 0x3").
func binding(t *testing.T, log, id string) cpuset.Set {
	t.Helper()
	re := regexp.MustCompile(`_lllp_generate_cpu_bind jobid \[` + id + `\]: .*, 0x([0-9A-Fa-f]+)\s*$`)
	for _, line := range strings.Split(log, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			hex := m[1]
			for len(hex)%8 != 0 {
				hex = "0" + hex
			}
			var words []string
			for i := 0; i < len(hex); i += 8 {
				words = append(words, hex[i:i+8])
			}
			set, err := cpuset.ParseMask(strings.Join(words, ","))
			if err != nil {
				t.Fatalf("slurmd's mask %q: %v", line, err)
			}
			return set
		}
	}
	t.Fatalf("slurmd's log says nothing of job %s's binding", id)
	return cpuset.Set{}
}

// checkRun checks one folder against its job: corepin inherited Slurm's
// binding and picked its target in it; the cpuset corepin read is the
// job's allocation; every run's mask, cgroup CPUs and cgroup folders lie
// inside the job's.
func checkRun(t *testing.T, r *results.Run, j job, bound cpuset.Set) {
	t.Helper()
	alloc, err := cpuset.Parse(j.cpuIDs)
	if err != nil {
		t.Fatalf("job %s's CPU_IDs %q: %v", j.id, j.cpuIDs, err)
	}
	topo := r.Topology
	jobDir, _, _ := strings.Cut(topo.CpusetFile, "/job_"+j.id+"/")
	jobDir += "/job_" + j.id + "/"
	t.Logf("job %s: Slurm bound the step to %s of the allocation %s; corepin inherited %v, read the cpuset %v from %s, target %s CPU %d",
		j.id, bound, alloc, topo.Allowed, topo.Cpuset, topo.CpusetFile, r.Target.Spec, r.Target.ExactCPU)
	if topo.Allowed == nil || !topo.Allowed.Equal(bound) {
		t.Errorf("job %s: corepin inherited %v, Slurm bound the step to %s", j.id, topo.Allowed, bound)
	}
	if topo.Cpuset == nil || !topo.Cpuset.Equal(alloc) {
		t.Errorf("job %s: corepin's cpuset %v, the job's CPUs %s", j.id, topo.Cpuset, alloc)
	}
	if !r.Target.CPUs().IsSubsetOf(bound) {
		t.Errorf("job %s: the target %s lies outside the binding %s", j.id, r.Target.CPUs(), bound)
	}
	runs := 0
	for _, b := range r.Benchmarks {
		for _, rec := range b.Runs {
			s := rec.Scheduling
			if s == nil || s.Tree == nil {
				t.Errorf("job %s: %s run %d has no scheduling report or tree", j.id, b.Name, rec.Index)
				continue
			}
			runs++
			if !s.Readback.CPUs.IsSubsetOf(bound) || !s.Tree.CgroupCPUs.IsSubsetOf(bound) {
				t.Errorf("job %s: %s run %d read back %s, cgroup CPUs %s: outside the binding %s", j.id, b.Name, rec.Index, s.Readback.CPUs, s.Tree.CgroupCPUs, bound)
			}
			if !slices.ContainsFunc(s.Tree.Cgroup, func(d string) bool { return strings.HasPrefix(d, jobDir) }) {
				t.Errorf("job %s: %s run %d's cgroups %q: none under the job's %s", j.id, b.Name, rec.Index, s.Tree.Cgroup, jobDir)
			}
			for _, d := range s.Tree.Cgroup {
				if strings.Contains(d, "/slurm_") && !strings.Contains(d, "/job_"+j.id+"/") {
					t.Errorf("job %s: %s run %d's cgroup %s is in another job's", j.id, b.Name, rec.Index, d)
				}
			}
		}
	}
	if runs == 0 {
		t.Errorf("job %s: no run recorded", j.id)
	}
}
