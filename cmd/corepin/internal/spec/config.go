package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/topology"
)

// Config is a runcpu config fragment that runs every benchmark command
// through corepin exec, by the one hook SPEC's rules allow in a
// reportable run: submit (SPEC CPU 2017's config manual, IV.B; the
// harness's check_submit and prep_specrun).
type Config struct {
	// Corepin is the corepin runcpu starts: a path, or a name on the
	// PATH runcpu runs with.
	Corepin string
	// Binds are $BIND of each copy, in order: one CPU ("3"), or with
	// several CPUs a copy a list ("4-7"), which exec takes with --cpus
	// in soft mode. runcpu starts again from the first when there are
	// more copies than values.
	Binds []string
	// Flags are exec's scheduling flags, as words.
	Flags []string
	// Telemetry also writes each command's per-CPU curves beside its
	// report (exec --telemetry).
	Telemetry bool
	// Reports is the folder the reports' folders go into, an absolute
	// path; "" for the SPEC tree's result folder, $[top]/result, which a
	// read-only tree (runcpu's output_root elsewhere) cannot take.
	Reports string
	// Line is the corepin command line that made the fragment, as words.
	Line []string
}

// ReportDir is the name, but for the run's lognum, of the folder the
// reports of one runcpu run go into: corepin.<lognum>.
const ReportDir = "corepin."

// DefaultReports is where the reports' folders go by default: the SPEC
// tree's result folder, beside runcpu's own result files.
const DefaultReports = "$[top]/result"

// ReportName is the name of the report of one command, as the submit
// line writes it with runcpu's variables and import spec reads it: the
// benchmark, tuning, iteration, workload and copy it joins by.
func ReportName(benchmark, tune string, iter, workload, copy int) string {
	return fmt.Sprintf("%s.%s.i%d.w%d.c%d.json", benchmark, tune, iter, workload, copy)
}

// Script is the file in the copy's run folder that the command is
// written to and run from.
const Script = "corepin.sh"

// Fragment writes the fragment: runcpu config lines, each after a comment
// that says why it is there. Every line is in the default section, which
// every benchmark reads, so the fragment goes at the end of a config.
func (c Config) Fragment() (string, error) {
	if len(c.Binds) == 0 {
		return "", errors.New("no CPU to bind copies to")
	}
	words := append([]string{c.Corepin}, c.Flags...)
	if c.Reports != "" {
		words = append(words, c.Reports)
	}
	for _, w := range words {
		if err := configWord(w); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	c.writeHeader(&b)
	c.writeSettings(&b)
	c.writeSubmit(&b)
	return b.String(), nil
}

// soft says whether each copy runs on a list of CPUs (--cpus-per-copy).
func (c Config) soft() bool {
	return slices.ContainsFunc(c.Binds, func(b string) bool { return strings.ContainsAny(b, "-,") })
}

// reportsFolder is the folder of one run's reports, as the submit lines
// write it: runcpu fills in ${lognum}.
func (c Config) reportsFolder() string {
	dir := DefaultReports
	if c.Reports != "" {
		dir = shellWord(c.Reports)
	}
	return dir + "/" + ReportDir + "${lognum}"
}

// execCommand is the submit line's corepin exec: on CPU $BIND (a copy's
// list of CPUs in soft mode), the scheduling flags as given, a report
// (and curves) named by benchmark, tuning, iteration, workload and copy.
func (c Config) execCommand() string {
	report := c.reportsFolder() + "/${benchmark}.${tune}.i${iter}.w${workload}.c$SPECCOPYNUM"
	exec := []string{shellWord(c.Corepin), "exec", "-q"}
	if c.soft() {
		exec = append(exec, "--cpus", "$BIND", "--mode", "soft")
	} else {
		exec = append(exec, "--cpu", "$BIND")
	}
	for _, f := range c.Flags {
		exec = append(exec, shellWord(f))
	}
	exec = append(exec, "--report", report+".json")
	if c.Telemetry {
		exec = append(exec, "--telemetry", report+".csv")
	}
	return strings.Join(append(exec, "--", "sh", Script), " ")
}

func comment(b *strings.Builder, lines ...string) {
	for _, l := range lines {
		b.WriteString("# " + l + "\n")
	}
}

func setting(b *strings.Builder, key, value string) { fmt.Fprintf(b, "   %s = %s\n", key, value) }

// writeHeader says what the fragment is, the command line that made it
// (quoted as a shell would take it), and where it goes.
func (c Config) writeHeader(b *strings.Builder) {
	line := make([]string, len(c.Line))
	for i, w := range c.Line {
		line[i] = shellWord(w)
	}
	comment(b, "runcpu config fragment: every SPEC CPU command on the CPU corepin chose,",
		"read back, kept there and reported. Made by:",
		"   "+strings.Join(line, " "),
		"Paste it at the end of your config file: it is all in the default",
		"section, which every benchmark reads. SPEC CPU 2017 and 2026 alike.")
	b.WriteString("default:\n")
}

// writeSettings writes the settings submit relies on: the redirections
// in the command, submit for speed runs too, and the copies' CPUs.
func (c Config) writeSettings(b *strings.Builder) {
	comment(b, "runcpu writes each command's redirections into ${command} itself, so",
		"what corepin says goes to speccmds.err, not into the output specdiff",
		"validates.")
	setting(b, "command_add_redirect", "yes")
	comment(b, "Speed runs go through submit too; rate runs always do.")
	setting(b, "use_submit_for_speed", "yes")
	if c.soft() {
		comment(b, "$BIND of each copy: a list of CPUs of the chosen performance group,",
			"the target's first, whole cores before SMT siblings. More copies than",
			"lists share them: corepin says so.")
	} else {
		comment(b, "$BIND of each copy: the target first (a speed run's one copy, a rate",
			"run's copy 0), then one CPU a copy from its performance group, a core's",
			"first hardware thread before its siblings. More copies than CPUs share",
			"them: corepin says so.")
	}
	setting(b, "bind", strings.Join(c.Binds, " "))
}

// writeSubmit writes the submit lines: the reports' folder, the command
// into a script, and the script through corepin exec.
func (c Config) writeSubmit(b *strings.Builder) {
	if c.Reports == "" {
		comment(b, "The folder of corepin's reports of this run, which corepin import spec",
			"joins with the raw file of the same ${lognum}.")
	} else {
		comment(b, "The folder of corepin's reports of this run, out of the SPEC tree",
			"(--reports). corepin import spec finds it through the commands the run",
			"folders' speccmds.out record, or give it --evidence.")
	}
	setting(b, "submit0", "mkdir -p "+c.reportsFolder())
	comment(b, "The command as runcpu made it, redirections included, into a script in",
		"the copy's run folder: the line keeps the executable's name (runcpu's",
		"check), and corepin's own output stays out of the redirections.")
	setting(b, "submit1", `echo "${command}" > `+Script)
	comment(b, "The script on CPU $BIND, read back, watched and kept there; the report",
		"is named by iteration, workload and copy. corepin's exit status is the",
		"command's: a start it refused (125, the reason in speccmds.err) is SPEC's RE.")
	setting(b, "submit2", c.execCommand())
}

// configWord refuses what a config line cannot carry through runcpu and
// the shell unchanged: runcpu interpolates $, begins a comment at # and
// ends the line at a newline; a quote would end the shell's word.
func configWord(w string) error {
	if w == "" || strings.ContainsAny(w, "$#'\"\\\n\r`") {
		return fmt.Errorf("%q cannot be written into a runcpu config line", w)
	}
	return nil
}

// shellWord quotes a word for the shell where it needs it.
func shellWord(w string) string {
	if strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:,+=/@%-", r))
	}) < 0 {
		return w
	}
	return "'" + w + "'"
}

// Binds lists $BIND for each copy: the target's exact CPU first, then
// the other usable CPUs of its pool, a physical core's first hardware
// thread before any SMT sibling, so that copies share no core while cores
// are left. The pool is the target's own CPUs where several were asked
// for or chosen (--cpus, a group), else the performance group of its CPU.
// With perCopy above 1 each value is a list of that many CPUs.
func Binds(topo *topology.Topology, target topology.Target, perCopy int) ([]string, error) {
	if perCopy < 1 {
		return nil, fmt.Errorf("%d CPUs a copy: want at least 1", perCopy)
	}
	usable := topo.Usable()
	pool := target.SoftCPUs.Intersect(usable)
	if pool.Len() <= 1 {
		if g := topo.GroupOf(target.ExactCPU); g != nil {
			pool = g.CPUs.Intersect(usable)
		}
	}
	pool = pool.Union(cpuset.Of(target.ExactCPU))
	order := []int{target.ExactCPU}
	used := topo.WholeCores(cpuset.Of(target.ExactCPU))
	var siblings []int
	for _, id := range pool.CPUs() {
		switch {
		case id == target.ExactCPU:
		case used.Contains(id):
			siblings = append(siblings, id)
		default:
			order = append(order, id)
			used = used.Union(topo.WholeCores(cpuset.Of(id)))
		}
	}
	order = append(order, siblings...)
	if len(order) < perCopy {
		return nil, fmt.Errorf("%d CPUs a copy, but the target's pool has %d (%s)", perCopy, len(order), pool)
	}
	var binds []string
	for i := 0; i+perCopy <= len(order); i += perCopy {
		binds = append(binds, cpuset.Of(order[i:i+perCopy]...).String())
	}
	return binds, nil
}
