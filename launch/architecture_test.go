package launch

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// launch starts work and nothing else: it links neither the machine's
// tuning (system) nor the result model (results), whose evidence types
// (results/evidence) are all a report needs. The guard, which needs both,
// is handed in as an interface (Config.Guard).
func TestLaunchImportsNoSystemOrResults(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"corepin.dev/corepin/cmd/corepin/internal/system", "corepin.dev/corepin/results"} {
		if slices.Contains(deps, p) {
			t.Errorf("launch links %s", p)
		}
	}
	if !slices.Contains(deps, "corepin.dev/corepin/launch") {
		t.Errorf("go list -deps did not list launch itself: %v", deps)
	}
}

// maxLines is how many lines launch's non-test Go files may hold: what
// is not starting work (the tree, the guard, the cgroups, the judging)
// lives in a package of its own.
const maxLines = 2000

// TestLaunchStaysSmall counts the lines of launch's non-test Go files.
func TestLaunchStaysSmall(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	n, counted := 0, 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for s := bufio.NewScanner(f); s.Scan(); {
			n++
		}
		f.Close()
		counted++
	}
	if counted == 0 {
		t.Skip("launch's sources are not beside the test binary")
	}
	t.Logf("launch: %d lines in %d files", n, counted)
	if n > maxLines {
		t.Errorf("launch holds %d lines of non-test Go, over %d: move what does not start work out of it", n, maxLines)
	}
}
