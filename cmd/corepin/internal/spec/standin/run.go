package standin

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// iteration is one benchmark's iteration as runcpu records it.
type iteration struct {
	bench      string
	number     int
	copies     int
	reported   float64 // seconds; -1 for none
	reference  float64
	ratio      float64
	valid      string
	errors     []string
	selected   bool
	rateStart  float64
	rateEnd    float64
	rc         int
	submitUsed bool
}

// run is runcpu: every benchmark, every iteration, then the result.
func (p *Plan) run(stdout io.Writer) error {
	cfg, err := readConfig(p.Config)
	if err != nil {
		return err
	}
	lognum, err := p.nextLognum()
	if err != nil {
		return err
	}
	var its []*iteration
	for _, b := range p.Benchmarks {
		ref, err := p.reference(b)
		if err != nil {
			return err
		}
		for i := 0; i < max(1, p.Iterations); i++ {
			it, err := p.iterate(cfg, b, i, lognum, ref)
			if err != nil {
				return err
			}
			if p.Action == "setup" {
				break
			}
			its = append(its, it)
		}
	}
	if p.Action == "setup" {
		fmt.Fprintln(stdout, "Setup complete")
		return nil
	}
	path, err := p.writeResult(lognum, its)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "    format: raw -> %s\n", path)
	return nil
}

// nextLognum is the run's number: one more than the result folder's
// highest.
func (p *Plan) nextLognum() (string, error) {
	dir := filepath.Join(p.Top, "result")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	n := 1
	for {
		lognum := fmt.Sprintf("%03d", n)
		if m, _ := filepath.Glob(filepath.Join(dir, "CPU2017."+lognum+".*")); len(m) == 0 {
			return lognum, nil
		}
		n++
	}
}

func (p *Plan) benchDir(b Benchmark) string {
	return filepath.Join(p.Top, "benchspec", "CPU", b.Name)
}

func (p *Plan) reference(b Benchmark) (float64, error) {
	data, err := os.ReadFile(filepath.Join(p.benchDir(b), "data", p.Size, "reftime"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		var v float64
		if len(f) == 3 && f[0] == p.Size {
			if _, err := fmt.Sscan(f[2], &v); err == nil {
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("no %s reference time for %s", p.Size, b.Name)
}

func (p *Plan) copies() int {
	if p.Runmode == "rate" {
		return max(1, p.Copies)
	}
	return 1
}

// runDirs are the copies' run folders, made with the program in copy 0's
// and the inputs in each.
func (p *Plan) runDirs(b Benchmark) ([]string, error) {
	var dirs []string
	for c := range p.copies() {
		dir := filepath.Join(p.benchDir(b), "run", fmt.Sprintf("run_%s_%s_%s.%04d", p.Tune, p.Size, p.Label, c))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if c == 0 {
			if err := copyFile(filepath.Join(p.benchDir(b), "exe", b.Exe), filepath.Join(dir, p.exeName(b))); err != nil {
				return nil, err
			}
		}
		for _, w := range b.Workloads {
			if w.Input != "" {
				if err := copyFile(filepath.Join(p.benchDir(b), "data", p.Size, "input", w.Input), filepath.Join(dir, w.Input)); err != nil {
					return nil, err
				}
			}
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

// exeName is the program's name in its run folder: <exe>_<tune>.<label>.
func (p *Plan) exeName(b Benchmark) string { return b.Exe + "_" + p.Tune + "." + p.Label }

// iterate sets up, runs and validates one iteration.
func (p *Plan) iterate(cfg *config, b Benchmark, number int, lognum string, ref float64) (*iteration, error) {
	it := &iteration{bench: b.Name, number: number, copies: p.copies(), reported: -1, reference: ref, valid: "S"}
	dirs, err := p.runDirs(b)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{"top": p.Top, "benchmark": b.Name, "tune": p.Tune, "label": p.Label, "size": p.Size,
		"iter": fmt.Sprint(number), "lognum": lognum}
	vars["benchnum"], vars["benchname"], _ = strings.Cut(b.Name, ".")
	var cmds []string
	useSubmit := len(cfg.submit) > 0 && (p.Runmode == "rate" || cfg.submitForSpeed)
	for w, wl := range b.Workloads {
		exe := "../" + filepath.Base(dirs[0]) + "/" + p.exeName(b)
		command := strings.Join(append([]string{exe}, wl.Args...), " ")
		if cfg.addRedirect {
			if wl.Input != "" {
				command += " < " + wl.Input
			}
			command += " > " + wl.Output + " 2>> " + wl.Output + ".err"
		}
		if useSubmit {
			vars["command"], vars["workload"] = command, fmt.Sprint(w)
			if command, err = interpolate(strings.Join(cfg.submit, "\n"), vars); err != nil {
				return nil, err
			}
			command = strings.ReplaceAll(command, "\n", ";")
			it.submitUsed = true
		}
		// runcpu's check: the string must still run the program.
		if !strings.Contains(command, b.Exe) {
			it.valid = "TE"
			it.errors = append(it.errors, "the command would not result in any execution")
		}
		cmds = append(cmds, p.commandLine(wl, cfg.addRedirect, command))
	}
	if err := p.writeCommandFile(filepath.Join(dirs[0], "speccmds.cmd"), cfg, dirs, cmds); err != nil {
		return nil, err
	}
	if err := p.writeCompareFile(b, dirs); err != nil {
		return nil, err
	}
	if p.Action == "setup" || it.valid != "S" {
		return it, nil
	}
	if h := p.Compete; h != nil && h.Benchmark == b.Name && h.Iteration == number {
		c, err := competitor(h.CPU)
		if err != nil {
			return nil, err
		}
		err = p.invoke(it, dirs[0], lognum)
		c.Stop()
		if err != nil {
			return nil, err
		}
	} else if err := p.invoke(it, dirs[0], lognum); err != nil {
		return nil, err
	}
	if h := p.Corrupt; h != nil && h.Benchmark == b.Name && h.Iteration == number {
		f, err := os.OpenFile(filepath.Join(dirs[0], b.Workloads[0].Output), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(f, "spoilt 1e9")
		f.Close()
	}
	if it.valid == "S" {
		for _, dir := range dirs {
			for _, wl := range b.Workloads {
				if why := compareOutput(filepath.Join(p.benchDir(b), "data", p.Size, "output", wl.Output), filepath.Join(dir, wl.Output), b.RelTol); why != "" {
					it.valid = "VE"
					it.errors = append(it.errors, fmt.Sprintf("Output miscompare in %s: %s", filepath.Base(dir), why))
				}
			}
		}
	}
	if it.reported > 0 {
		c := 1.0
		if p.Runmode == "rate" {
			c = float64(it.copies)
		}
		it.ratio = round(c*ref/it.reported, 6)
	}
	return it, nil
}

// commandLine is a command as speccmds.cmd holds it: the files
// specinvoke connects, then the command.
func (p *Plan) commandLine(wl Workload, redirect bool, command string) string {
	var b strings.Builder
	if wl.Input != "" {
		b.WriteString("-i " + wl.Input + " ")
	}
	b.WriteString("-o " + wl.Output + " -e " + wl.Output + ".err ")
	return b.String() + command
}

// writeCommandFile writes speccmds.cmd (the harness's prep_specrun).
func (p *Plan) writeCommandFile(path string, cfg *config, dirs, cmds []string) error {
	var b strings.Builder
	for _, e := range []string{"OMP_THREAD_LIMIT=1", "SPEC=" + p.Top, "PATH=" + filepath.Join(p.Top, "bin") + ":" + os.Getenv("PATH")} {
		name, value, _ := strings.Cut(e, "=")
		fmt.Fprintf(&b, "-E %s %s\n", name, value)
	}
	if cfg.addRedirect {
		b.WriteString("-r\n")
	}
	b.WriteString("-N C\n")
	for i, dir := range dirs {
		if len(cfg.bind) > 0 {
			fmt.Fprintf(&b, "-b %s\n", cfg.bind[i%len(cfg.bind)])
		}
		fmt.Fprintf(&b, "-C %s\n", dir)
	}
	for _, c := range cmds {
		b.WriteString(c + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeCompareFile writes compare.cmd: specdiff on each output of each
// copy, with the benchmark's tolerance.
func (p *Plan) writeCompareFile(b Benchmark, dirs []string) error {
	var s strings.Builder
	s.WriteString("-E SPEC " + p.Top + "\n-r\n-N C\n")
	for _, dir := range dirs {
		fmt.Fprintf(&s, "-C %s\n", dir)
	}
	for _, wl := range b.Workloads {
		expected := filepath.Join(p.benchDir(b), "data", p.Size, "output", wl.Output)
		fmt.Fprintf(&s, "-k -o %s.cmp %s %s -m -l 10 --reltol %g %s %s > %s.cmp\n", wl.Output, filepath.Join(p.Top, "bin", "specperl"),
			filepath.Join(p.Top, "bin", "harness", "specdiff"), b.RelTol, expected, wl.Output, wl.Output)
	}
	return os.WriteFile(filepath.Join(dirs[0], "compare.cmd"), []byte(s.String()), 0o644)
}

// compareOutput compares an output with its reference word by word, a
// number within rel of the reference's; "" when they agree.
func compareOutput(expected, got string, rel float64) string {
	want, err := os.ReadFile(expected)
	if err != nil {
		return err.Error()
	}
	have, err := os.ReadFile(got)
	if err != nil {
		return err.Error()
	}
	w, g := strings.Fields(string(want)), strings.Fields(string(have))
	if len(w) != len(g) {
		return fmt.Sprintf("%d words, the reference %d", len(g), len(w))
	}
	for i := range w {
		if w[i] == g[i] {
			continue
		}
		var a, b float64
		_, e1 := fmt.Sscan(w[i], &a)
		_, e2 := fmt.Sscan(g[i], &b)
		if e1 != nil || e2 != nil || math.Abs(a-b) > rel*math.Abs(a) {
			return fmt.Sprintf("%q, the reference %q", g[i], w[i])
		}
	}
	return ""
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// writeResult selects each benchmark's iteration, computes the mean and
// writes the raw file.
func (p *Plan) writeResult(lognum string, its []*iteration) (string, error) {
	byBench := map[string][]*iteration{}
	var order []string
	for _, it := range its {
		if _, ok := byBench[it.bench]; !ok {
			order = append(order, it.bench)
		}
		byBench[it.bench] = append(byBench[it.bench], it)
	}
	logSum, n := 0.0, 0
	invalid := false
	for _, b := range order {
		var valid []*iteration
		for _, it := range byBench[b] {
			if it.valid == "S" {
				valid = append(valid, it)
			} else {
				invalid = true
			}
		}
		if len(valid) == 0 {
			continue
		}
		// The median by time; for an even count, the slower middle one:
		// the lower median ratio.
		slices.SortStableFunc(valid, func(a, b *iteration) int { return cmp.Compare(a.reported, b.reported) })
		sel := valid[len(valid)/2]
		sel.selected = true
		logSum += math.Log(sel.ratio)
		n++
	}
	mean := "--"
	if n > 0 {
		mean = fmt.Sprintf("%.6f", round(math.Exp(logSum/float64(n)), 6))
	}
	var b strings.Builder
	line := func(key, format string, a ...any) {
		fmt.Fprintf(&b, "spec.cpu2017.%s: %s\n", key, fmt.Sprintf(format, a...))
	}
	line("hw_cpu_name", "the test machine")
	b.WriteString("# =============== do not edit below this point ===================\n")
	line("basemean", "%s", mean)
	line("invalid", "%d", map[bool]int{false: 0, true: 1}[invalid])
	line("lognum", "%s", lognum)
	line("name", "%s", p.Name)
	line("peakmean", "Not Run")
	line("runcpuver", "standin")
	line("runmode", "%s", p.Runmode)
	line("size", "%s (ref)", p.Size)
	line("suitever", "0")
	for _, bench := range order {
		key := strings.Replace(bench, ".", "_", 1)
		for i, it := range byBench[bench] {
			r := func(k, format string, a ...any) {
				line(fmt.Sprintf("results.%s.%s.%03d.%s", key, p.Tune, i, k), format, a...)
			}
			r("benchmark", "%s", bench)
			r("copies", "%d", it.copies)
			for j, e := range it.errors {
				r(fmt.Sprintf("errors%03d", j), "%s", e)
			}
			r("iteration", "%d", it.number)
			if it.rateStart > 0 {
				r("rate_end", "%.6f", it.rateEnd)
				r("rate_start", "%.6f", it.rateStart)
			}
			if it.reported > 0 {
				r("ratio", "%.6f", it.ratio)
				r("reported_time", "%.6f", it.reported)
			} else {
				r("ratio", "--")
				r("reported_time", "--")
			}
			r("rc", "%d", it.rc)
			r("reference", "%g", it.reference)
			r("selected", "%d", map[bool]int{false: 0, true: 1}[it.selected])
			r("submit", "%d", map[bool]int{false: 0, true: 1}[it.submitUsed])
			r("threads", "1")
			r("valid", "%s", it.valid)
		}
	}
	path := filepath.Join(p.Top, "result", fmt.Sprintf("CPU2017.%s.%s.%s.rsf", lognum, p.Name, p.Size))
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}
