package page

import (
	"os/exec"
	"strings"
	"testing"
)

// The page links the result model and the telemetry CSV's reader, and
// nothing of the launcher or the sampler; of the kernel's files only the
// reader of a process's identity, through which results checks that a
// folder's writer is gone: a program that renders a results folder links
// these of corepin alone.
func TestPageLinksNoLauncher(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"corepin.dev/corepin/internal/page":       true,
		"corepin.dev/corepin/results":             true,
		"corepin.dev/corepin/results/evidence":    true,
		"corepin.dev/corepin/internal/samples":    true,
		"corepin.dev/corepin/cpuset":              true,
		"corepin.dev/corepin/internal/atomicfile": true,
		"corepin.dev/corepin/internal/inputfile":  true,
		"corepin.dev/corepin/internal/termsafe":   true,
		"corepin.dev/corepin/internal/procfs":     true,
		"corepin.dev/corepin/fsroot":              true,
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "corepin.dev/") && !allowed[d] {
			t.Errorf("page links %s", d)
		}
	}
}
