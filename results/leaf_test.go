package results

import (
	"os/exec"
	"strings"
	"testing"
)

// leafImports are the packages outside the standard library that results
// may link: the CPU-list type, its small internal helpers (writing and
// reading files, text made safe), its own
// evidence types, benchmath (with what benchmath needs) and the reader of
// /proc. A program that
// only reads run.json links these and nothing of the launcher.
var leafImports = map[string]bool{
	"corepin.dev/corepin/cpuset":              true,
	"corepin.dev/corepin/internal/atomicfile": true,
	"corepin.dev/corepin/internal/inputfile":  true,
	"corepin.dev/corepin/internal/termsafe":   true,
	"corepin.dev/corepin/results":             true,
	"corepin.dev/corepin/results/evidence":    true,
	"golang.org/x/perf/benchmath":             true,
	"golang.org/x/perf/benchunit":             true, // a measure's numbers as benchstat scales them
	"github.com/aclements/go-moremath/mathx":  true,
	"github.com/aclements/go-moremath/stats":  true,
	"github.com/aclements/go-moremath/vec":    true,
	// The one reader of /proc, which tells whether a run's writer still
	// runs (state.go), with what it reads through.
	"corepin.dev/corepin/internal/procfs": true,
	"corepin.dev/corepin/fsroot":          true,
	"golang.org/x/sys/unix":               true,
}

// results is a leaf: what it links outside the standard library is
// leafImports, as go list says.
func TestResultsIsALeaf(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "./evidence").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if !leafImports[d] {
			t.Errorf("results links %s", d)
		}
	}
	if len(deps) == 0 {
		t.Error("go list -deps listed nothing")
	}
}
