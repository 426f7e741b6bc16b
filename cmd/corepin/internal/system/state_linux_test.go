package system

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results/evidence"
)

// The facts of a machine whose journal holds a tune that outlived its
// process, with a shield that is still up, say so: the warnings a run puts
// in run.json name the tune and how to undo it, and the JSON carries the
// shield with its CPUs as they read now.
func TestFactsCarryTheJournal(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	if f := mustRead(t, root, cpuset.Of(1)); f.Journal != nil {
		t.Fatalf("a machine without a journal: %+v", f.Journal)
	}
	cg := "sys/fs/cgroup/corepin-shield-77"
	if err := os.MkdirAll(filepath.Join(root, cg), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, cg, "cpuset.cpus"), []byte("0\n"), 0o644)
	dir := filepath.Join(root, "run", "corepin")
	os.MkdirAll(dir, 0o755)
	started := time.Date(2025, 3, 4, 5, 6, 7, 0, time.Local)
	j := Journal{Schema: JournalSchema, Layers: []Layer{{Owner: gone, Command: "corepin system tune --cpus 1 --shield \x1b]0;x\a", Started: started, Entries: []evidence.Entry{
		{Op: evidence.OpMkdir, Path: cg, Old: "sys/fs/cgroup/cgroup.procs"},
		{Op: evidence.OpWrite, Path: governor, Old: "powersave\n"},
	}}}}
	writeJournal(t, filepath.Join(dir, "system.json"), j, os.Geteuid(), 0o644)

	f := mustRead(t, root, cpuset.Of(1))
	s := f.Journal
	if s == nil || s.Error != "" || len(s.Tunes) != 1 || s.Tunes[0].Running || s.Tunes[0].Changes != 2 || s.Tunes[0].PID != gone.PID {
		t.Fatalf("journal state: %+v", s)
	}
	if len(s.Shields) != 1 || s.Shields[0].Cgroup != cg || s.Shields[0].CPUs.String() != "1" || s.Shields[0].Others.String() != "0" || s.Shields[0].Inside {
		t.Errorf("shields: %+v", s.Shields)
	}
	warned := strings.Join(f.Warnings(), "\n")
	if !strings.Contains(warned, "the machine is still tuned from `corepin system tune --cpus 1 --shield \\e]0;x\\x07` (pid 1073741824, 2025-03-04 05:06:07, 2 changes); `corepin system reset` restores it") {
		t.Errorf("warnings:\n%s", warned)
	}
	if strings.Contains(warned, "inside corepin's shield") {
		t.Errorf("a reader outside the shield is told it is inside:\n%s", warned)
	}
	var text strings.Builder
	f.WriteText(&text)
	if !strings.Contains(text.String(), "2 changes by `corepin system tune --cpus 1 --shield \\e]0;x\\x07` (pid 1073741824, 2025-03-04 05:06:07), its process has ended") ||
		!strings.Contains(text.String(), "shield: CPUs 1 kept for the work by `corepin system tune --cpus 1 --shield \\e]0;x\\x07`, the rest of the machine in sys/fs/cgroup/corepin-shield-77 on CPUs 0\n") {
		t.Errorf("system show:\n%s", text.String())
	}
	data, _ := json.Marshal(f)
	if !strings.Contains(string(data), `"journal":{"journal":`) || !strings.Contains(string(data), `"shields":[{"cgroup":"sys/fs/cgroup/corepin-shield-77","cpus":[1],"others":[0]`) {
		t.Errorf("JSON: %s", data)
	}

	// The same shield with the reader inside it.
	s.Shields[0].Inside = true
	if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "inside corepin's shield: CPUs 1 are shielded by `corepin system tune --cpus 1 --shield \\e]0;x\\x07` (pid 1073741824, 2025-03-04 05:06:07), and this process may use only CPUs 0; run corepin from the shell that made the shield, or take the shield down with `corepin system reset`") {
		t.Errorf("inside: %s", w)
	}
	s.Shields[0].Running = true
	if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "or after it ends: the shield comes down with it") {
		t.Errorf("inside a running corepin's shield: %s", w)
	}

	// A shield known by the reader's cgroup alone, beside a journal that
	// cannot be read: both are said.
	only := &evidence.JournalState{Journal: "/run/corepin/system.json", Error: "the journal /run/corepin/system.json is root's and only root may read it",
		Shields: []evidence.ShieldUp{{Cgroup: "sys/fs/cgroup/corepin-shield-9", CPUs: cpuset.Of(1), Others: cpuset.Of(0), TuneLayer: evidence.TuneLayer{PID: 9}, Inside: true}}}
	if w := strings.Join(only.Warnings(), "\n"); !strings.Contains(w, "only root may read it") ||
		!strings.Contains(w, "inside corepin's shield: CPUs 1 are shielded by corepin pid 9 (its cgroup sys/fs/cgroup/corepin-shield-9 says so; the journal /run/corepin/system.json does not), and this process may use only CPUs 0") {
		t.Errorf("inside a shield the journal cannot tell of:\n%s", w)
	}

	// A journal cut short: the warning says how to recover.
	data, _ = os.ReadFile(filepath.Join(dir, "system.json"))
	os.WriteFile(filepath.Join(dir, "system.json"), data[:len(data)/2], 0o644)
	w := strings.Join(mustRead(t, root, cpuset.Of(1)).Warnings(), "\n")
	if !strings.Contains(w, "cannot use the journal of a tuned machine") || !strings.Contains(w, "restarting the machine puts back every value it may hold") || !strings.Contains(w, "then remove "+filepath.Join(dir, "system.json")) {
		t.Errorf("damaged journal: %s", w)
	}
}

// This process is inside its own cpuset cgroup and the hierarchy's root,
// and not inside a cgroup beside or below its own.
func TestInsideCgroup(t *testing.T) {
	mount, v2, err := cpusetMount(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	own := ""
	data, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && ((v2 && f[1] == "") || (!v2 && slices.Contains(strings.Split(f[1], ","), "cpuset"))) {
			own = filepath.Join(mount, f[2])
		}
	}
	if own == "" {
		t.Fatalf("no cpuset line in /proc/self/cgroup:\n%s", data)
	}
	if !insideCgroup(fsroot.Host, own) || !insideCgroup(fsroot.Host, mount) {
		t.Errorf("not inside its own cgroup %s or the root %s", own, mount)
	}
	if insideCgroup(fsroot.Host, filepath.Join(own, "corepin-shield-1")) || insideCgroup(fsroot.Host, own+"x") {
		t.Errorf("inside a cgroup below or beside its own %s", own)
	}
}

func TestShieldOf(t *testing.T) {
	m := "/sys/fs/cgroup"
	for own, want := range map[string]string{
		m + "/corepin-shield-12":              m + "/corepin-shield-12",
		m + "/corepin-shield-12/user/session": m + "/corepin-shield-12",
		m + "/user.slice/corepin-shield-3":    m + "/user.slice/corepin-shield-3",
		m + "/corepin-12-1":                   "",
		m:                                     "",
		"/elsewhere/corepin-shield-1":         "",
		"":                                    "",
	} {
		if got := shieldOf(own, m); got != want {
			t.Errorf("shieldOf(%q) = %q, want %q", own, got, want)
		}
	}
}

func init() {
	helpers["COREPIN_SYSTEM_TEST_STATE"] = func(spec string) int {
		root, path, _ := strings.Cut(spec, ":")
		s := ReadJournalState(fsroot.Root(root), path)
		if s == nil {
			os.Stdout.WriteString("no state\n")
			return 1
		}
		os.Stdout.WriteString(strings.Join(s.Warnings(), "\n") + "\n")
		return 0
	}
}

// The journal is readable by all, so that any user's corepin says the
// machine is tuned; one only root may read (an older corepin's) is
// reported as that.
func TestJournalStateForAnyUser(t *testing.T) {
	needRoot(t)
	root := copyTree(t, "acpi-cpufreq")
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "system.json")}
	if _, err := m.Session("test").Apply(t.Context(), []evidence.Change{{Path: governor, Value: "performance", Kind: Text}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(m.JournalPath())
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the journal: %v, mode %v, want 0644", err, fi.Mode())
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}

	// A journal of the live machine's, in a folder anyone may read, as
	// /run/corepin is, left by a process that ended.
	boot, err := bootID("/")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(lockDir(t), "system.json")
	j := Journal{Schema: JournalSchema, BootID: boot, Layers: []Layer{{Owner: gone, Command: "corepin system tune --cpus 1", Entries: []evidence.Entry{{Op: evidence.OpWrite, Path: governor, Old: "powersave\n"}}}}}
	writeJournal(t, path, j, 0, 0o644)
	exe := nobody.Executable(t)
	read := func() string {
		cmd := nobody.Command(t, exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "COREPIN_SYSTEM_TEST_STATE=/:"+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("as nobody: %v", err)
		}
		return string(out)
	}
	if out := read(); !strings.Contains(out, "the machine is still tuned from `corepin system tune --cpus 1`") {
		t.Errorf("nobody's reading of a 0644 journal:\n%s", out)
	}
	os.Chmod(path, 0o600)
	if out := read(); !strings.Contains(out, "is root's and only root may read it") {
		t.Errorf("nobody's reading of a 0600 journal:\n%s", out)
	}
}
