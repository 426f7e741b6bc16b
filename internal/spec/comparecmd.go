package spec

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// compare.cmd (a command file, see CommandFile) runs specdiff once per
// output file in each copy's folder:
//
//	-k -o inp.out.cmp $SPEC/bin/specperl $SPEC/bin/harness/specdiff -m -l 10 --abstol 1e-07 --reltol 0.0001 --obiwan /…/data/refrate/output/inp.out inp.out
//
// (with command_add_redirect the command ends "> inp.out.cmp" itself).
// specdiff's options (its usage text): -l N lines to print, -q, -m (write
// a .mis file), -a/--abstol X, -r/--reltol X, -s/--skiptol N, --skipabstol
// N, --skipreltol N, --skipobiwan N, -o/--obiwan (an off-by-one in the
// last digit passes), -O/--OBIWAN, -c/--cw (blank lines are skipped),
// -C/--CW, -b/--binary, -i/--ignorecase, -f/--floatcompare, -t/--calctol,
// --nonansupport, -H, -D, -S, -d DIR, -v N, --os OS; then the expected
// file and the output. Tolerances given turn on the number-by-number
// comparison, and with it --obiwan and --cw.

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

// parseSpecdiff reads specdiff's arguments.
func parseSpecdiff(args []string) (Diff, error) {
	var d Diff
	var files []string
	// tolerant: an option that turns on the number-by-number comparison
	// (specdiff's $check_floating before --floatcompare).
	tolerant, float := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == ">" || a == ">>" || a == "2>" || a == "2>>" || a == "<" {
			i++ // a redirection the command holds (command_add_redirect)
			continue
		}
		if strings.HasPrefix(a, ">") || strings.HasPrefix(a, "2>") || strings.HasPrefix(a, "<") {
			continue
		}
		if a == ";" || a == "&&" || a == "||" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			files = append(files, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		tol := func(to **float64) error {
			v, err := takes()
			if err != nil {
				return err
			}
			f, err := number(v)
			if err != nil || f == nil || *f < 0 {
				return fmt.Errorf("%s %q is not a tolerance", a, v)
			}
			*to = f
			return nil
		}
		var err error
		switch name {
		case "a", "abstol":
			err, tolerant = tol(&d.AbsTol), true
		case "r", "reltol":
			err, tolerant = tol(&d.RelTol), true
		case "s", "skiptol":
			var v string
			if v, err = takes(); err == nil {
				d.SkipTol, err = strconv.Atoi(v)
				if err != nil || d.SkipTol < 0 {
					err = fmt.Errorf("%s %q is not a count", a, v)
				}
			}
		case "skipabstol", "skipreltol", "skipobiwan":
			_, err = takes()
			tolerant = true
		case "l", "lines", "d", "datadir", "v", "verbose", "os":
			_, err = takes()
		case "o", "obiwan":
			d.Obiwan, tolerant = true, true
		case "t", "calctol":
			tolerant = true
		case "c", "cw":
			d.CW = true
		case "O", "OBIWAN", "C", "CW":
			// Off is the default, and a tolerance turns them on anyway.
		case "b", "binary":
			d.Binary = true
		case "i", "ignorecase":
			d.IgnoreCase = true
		case "f", "floating", "floatcompare":
			float = true
		case "m", "mis", "q", "quiet", "H", "histogram", "D", "showdiff", "S", "showerr", "nansupport", "nonansupport", "h", "help":
		default:
			return d, fmt.Errorf("unknown option %s", a)
		}
		if err != nil {
			return d, err
		}
	}
	if len(files) != 2 {
		return d, fmt.Errorf("%d files (%s), want the expected output and the output", len(files), clipText(strings.Join(files, " ")))
	}
	d.Expected, d.Output = files[0], files[1]
	// As specdiff's spec_diff: a tolerance turns on the comparison number
	// by number with off-by-one allowed, it or --floatcompare skips blank
	// lines, and a skip count alone compares numbers too.
	if tolerant {
		d.Obiwan = true
	}
	if tolerant || float {
		d.CW = true
	}
	d.Numeric = tolerant || float || d.SkipTol > 0
	return d, nil
}
