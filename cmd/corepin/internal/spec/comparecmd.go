package spec

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// compare.cmd (a command file, see CommandFile) runs specdiff once per
// output file in each copy's folder:
//
//	-k -o inp.out.cmp $SPEC/bin/specperl $SPEC/bin/harness/specdiff -m -l 10 --abstol 1e-07 --reltol 0.0001 --obiwan /…/data/refrate/output/inp.out inp.out
//
// (with command_add_redirect the command ends "> inp.out.cmp" itself).
// specdiff's own arguments are read in specdiff.go.

// Diff is one specdiff comparison: an output file against the reference
// output in SPEC's tree, and its tolerances.
type Diff struct {
	Line int // in compare.cmd
	// Expected is the reference output (absolute, in the user's SPEC
	// tree); Output the file the benchmark wrote, relative to its run
	// folder.
	Expected, Output string
	// AbsTol and RelTol are nil when not given; a number passes when it
	// is within either. SkipTol numbers may differ beyond them.
	AbsTol, RelTol *float64
	SkipTol        int
	// Obiwan lets a number differ by one in its last digit; CW skips
	// blank lines; Binary compares bytes; IgnoreCase compares words
	// without case.
	Obiwan, CW, Binary, IgnoreCase bool
	// Numeric says the comparison is number by number: a tolerance, a
	// skip count or --floatcompare was given.
	Numeric bool
}

// Diffs are the specdiff comparisons of a compare.cmd, in order; the
// other validation commands (a benchmark's own, run before specdiff) are
// named in skipped.
func Diffs(f *CommandFile) (diffs []Diff, skipped []string, err error) {
	for _, c := range f.Commands {
		words := strings.Fields(c.Text)
		at := -1
		for i, w := range words {
			if path.Base(w) == "specdiff" {
				at = i
				break
			}
		}
		if at < 0 {
			skipped = append(skipped, clipText(c.Text))
			continue
		}
		d, err := parseSpecdiff(words[at+1:])
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: specdiff: %w", c.Line, err)
		}
		d.Line = c.Line
		diffs = append(diffs, d)
	}
	if len(diffs) == 0 {
		return nil, skipped, errors.New("no specdiff command: not a compare.cmd")
	}
	return diffs, skipped, nil
}
