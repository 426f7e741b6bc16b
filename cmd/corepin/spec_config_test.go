package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The fragment for machines of other shapes: the bind line is the
// target, then one CPU a copy from its group, whole cores first; the
// scheduling flags reach exec as given, quoted for the shell, and the
// line that made it is quoted as a shell takes it; --reports puts the
// reports' folders out of the SPEC tree.
func TestSpecConfigGolden(t *testing.T) {
	const machines = "../../topology/testdata/machines/"
	for _, c := range []struct{ golden, root string }{
		{"spec-config-vm.txt", "vm-2cpu --cpu 1"},
		{"spec-config-phone.txt", "sgu-al10 --target big --ladder spec --realtime --accept exact+step<=2 --telemetry"},
		{"spec-config-hybrid.txt", "intel-hybrid-4p8e --target prime"},
		{"spec-config-speed.txt", "phone-2-3-2-1 --target group:1 --cpus-per-copy 3"},
		{"spec-config-reports.txt", "vm-2cpu --cpu 1 --reports /scratch/spec-reports --accept exact+nice<=-20"},
	} {
		args := append([]string{"spec", "config", "--corepin", "/opt/corepin/bin/corepin", "--root", machines + strings.Fields(c.root)[0]}, strings.Fields(c.root)[1:]...)
		out, errOut, code := corepin(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.root, code, errOut)
		}
		golden(t, c.golden, out)
	}
}

func TestSpecConfigRefused(t *testing.T) {
	const vm = "../../topology/testdata/machines/vm-2cpu"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cpus-per-copy", "3"}, "3 CPUs a copy, but the target's pool has 2"},
		{[]string{"--cpus-per-copy", "2", "--mode", "exact"}, "in soft mode, not --mode exact"},
		{[]string{"--cpus-per-copy", "0"}, "want at least 1"},
		{[]string{"--cpu", "7"}, "CPU 7 does not exist"},
		{[]string{"--policy", "fifo:999"}, "fifo"},
		{[]string{"--corepin", "/opt/$HOME/corepin"}, "cannot be written into a runcpu config line"},
	} {
		_, errOut, code := corepin(t, append([]string{"spec", "config", "--root", vm}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("spec config %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, errOut, exitUsage, c.want)
		}
	}
}

// docs/spec.md's fragment is the one the tests run: corepin spec config
// --cpu 1 on a 2-CPU machine, and, but for the CPUs and the corepin it
// names, the fragment the tests give the stand-in on this machine.
func TestSpecDocFragment(t *testing.T) {
	data, err := os.ReadFile("../../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```\n(# runcpu config fragment.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("docs/spec.md has no fragment")
	}
	doc := string(m[1])
	want, errOut, code := corepin(t, "spec", "config", "--root", "../../topology/testdata/machines/vm-2cpu", "--cpu", "1", "--corepin", "corepin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if doc != want {
		t.Errorf("docs/spec.md's fragment is not corepin spec config --cpu 1's:\n--- docs\n%s\n--- spec config\n%s", doc, want)
	}
	cpu := requireExec(t)
	exe, _ := os.Executable()
	got := fragment(t, cpu)
	got = strings.ReplaceAll(got, exe+" exec", "corepin exec")
	got = strings.Replace(got, fmt.Sprintf("spec config --cpu %d", cpu), "spec config --cpu 1", 1)
	bind := regexp.MustCompile(`(?m)^   bind = .*$`)
	got = bind.ReplaceAllString(got, bind.FindString(doc))
	if got != doc {
		t.Errorf("the tests' fragment differs from docs/spec.md's beyond its CPUs and corepin:\n%s", got)
	}
}
