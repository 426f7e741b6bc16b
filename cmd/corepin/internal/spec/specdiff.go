package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// specdiff's options (its usage text): -l N lines to print, -q, -m (write
// a .mis file), -a/--abstol X, -r/--reltol X, -s/--skiptol N, --skipabstol
// N, --skipreltol N, --skipobiwan N, -o/--obiwan (an off-by-one in the
// last digit passes), -O/--OBIWAN, -c/--cw (blank lines are skipped),
// -C/--CW, -b/--binary, -i/--ignorecase, -f/--floatcompare, -t/--calctol,
// --nonansupport, -H, -D, -S, -d DIR, -v N, --os OS; then the expected
// file and the output. Tolerances given turn on the number-by-number
// comparison, and with it --obiwan and --cw.

// specdiffArgs reads specdiff's arguments one by one into a Diff.
type specdiffArgs struct {
	d     Diff
	args  []string
	i     int
	files []string
	// tolerant: an option that turns on the number-by-number comparison
	// (specdiff's $check_floating before --floatcompare); float:
	// --floatcompare.
	tolerant, float bool
}

// specdiffOptions are what each of specdiff's options does to the
// comparison, by its name without dashes; flag is the option as
// written, for errors.
var specdiffOptions = map[string]func(a *specdiffArgs, flag string) error{
	"a":            func(a *specdiffArgs, flag string) error { return a.tolerance(flag, &a.d.AbsTol) },
	"abstol":       func(a *specdiffArgs, flag string) error { return a.tolerance(flag, &a.d.AbsTol) },
	"r":            func(a *specdiffArgs, flag string) error { return a.tolerance(flag, &a.d.RelTol) },
	"reltol":       func(a *specdiffArgs, flag string) error { return a.tolerance(flag, &a.d.RelTol) },
	"s":            (*specdiffArgs).skipCount,
	"skiptol":      (*specdiffArgs).skipCount,
	"skipabstol":   (*specdiffArgs).tolerantValue,
	"skipreltol":   (*specdiffArgs).tolerantValue,
	"skipobiwan":   (*specdiffArgs).tolerantValue,
	"o":            (*specdiffArgs).obiwan,
	"obiwan":       (*specdiffArgs).obiwan,
	"t":            func(a *specdiffArgs, _ string) error { a.tolerant = true; return nil },
	"calctol":      func(a *specdiffArgs, _ string) error { a.tolerant = true; return nil },
	"c":            func(a *specdiffArgs, _ string) error { a.d.CW = true; return nil },
	"cw":           func(a *specdiffArgs, _ string) error { a.d.CW = true; return nil },
	"b":            func(a *specdiffArgs, _ string) error { a.d.Binary = true; return nil },
	"binary":       func(a *specdiffArgs, _ string) error { a.d.Binary = true; return nil },
	"i":            func(a *specdiffArgs, _ string) error { a.d.IgnoreCase = true; return nil },
	"ignorecase":   func(a *specdiffArgs, _ string) error { a.d.IgnoreCase = true; return nil },
	"f":            func(a *specdiffArgs, _ string) error { a.float = true; return nil },
	"floating":     func(a *specdiffArgs, _ string) error { a.float = true; return nil },
	"floatcompare": func(a *specdiffArgs, _ string) error { a.float = true; return nil },
}

// Options that take a value corepin does not use, and options without
// one that change nothing corepin compares (off is the default of
// --OBIWAN and --CW, and a tolerance turns them on anyway).
var (
	specdiffIgnoredValue = []string{"l", "lines", "d", "datadir", "v", "verbose", "os"}
	specdiffIgnored      = []string{"O", "OBIWAN", "C", "CW", "m", "mis", "q", "quiet", "H", "histogram",
		"D", "showdiff", "S", "showerr", "nansupport", "nonansupport", "h", "help"}
)

// parseSpecdiff reads specdiff's arguments: its options, then the
// expected output and the output. Redirections the command holds
// (command_add_redirect) are skipped; a command after it (";", "&&",
// "||") is not specdiff's.
func parseSpecdiff(args []string) (Diff, error) {
	a := &specdiffArgs{args: args}
	for ; a.i < len(args); a.i++ {
		arg := args[a.i]
		switch {
		case arg == ">" || arg == ">>" || arg == "2>" || arg == "2>>" || arg == "<":
			a.i++ // a redirection and its file
		case strings.HasPrefix(arg, ">") || strings.HasPrefix(arg, "2>") || strings.HasPrefix(arg, "<"):
		case arg == ";" || arg == "&&" || arg == "||":
			return a.finish()
		case !strings.HasPrefix(arg, "-") || arg == "-":
			a.files = append(a.files, arg)
		default:
			if err := a.option(arg); err != nil {
				return a.d, err
			}
		}
	}
	return a.finish()
}

// option reads one option, "--reltol 1e-4" or "--reltol=1e-4".
func (a *specdiffArgs) option(flag string) error {
	name, _, _ := strings.Cut(strings.TrimLeft(flag, "-"), "=")
	if apply, ok := specdiffOptions[name]; ok {
		return apply(a, flag)
	}
	switch {
	case slices.Contains(specdiffIgnored, name):
		return nil
	case slices.Contains(specdiffIgnoredValue, name):
		_, err := a.value(flag)
		return err
	}
	return fmt.Errorf("unknown option %s", flag)
}

// value is the option's value: after its "=", else the next argument.
func (a *specdiffArgs) value(flag string) (string, error) {
	if _, v, ok := strings.Cut(flag, "="); ok {
		return v, nil
	}
	if a.i+1 >= len(a.args) {
		return "", fmt.Errorf("%s needs a value", flag)
	}
	a.i++
	return a.args[a.i], nil
}

// tolerance reads --abstol or --reltol, which turn on the comparison
// number by number.
func (a *specdiffArgs) tolerance(flag string, to **float64) error {
	v, err := a.value(flag)
	if err != nil {
		return err
	}
	f, err := number(v)
	if err != nil || f == nil || *f < 0 {
		return fmt.Errorf("%s %q is not a tolerance", flag, v)
	}
	*to, a.tolerant = f, true
	return nil
}

// skipCount reads --skiptol: how many numbers may differ beyond the
// tolerances.
func (a *specdiffArgs) skipCount(flag string) error {
	v, err := a.value(flag)
	if err != nil {
		return err
	}
	if a.d.SkipTol, err = strconv.Atoi(v); err != nil || a.d.SkipTol < 0 {
		return fmt.Errorf("%s %q is not a count", flag, v)
	}
	return nil
}

// tolerantValue reads an option whose value corepin does not use but
// which turns on the comparison number by number.
func (a *specdiffArgs) tolerantValue(flag string) error {
	_, err := a.value(flag)
	a.tolerant = true
	return err
}

func (a *specdiffArgs) obiwan(string) error {
	a.d.Obiwan, a.tolerant = true, true
	return nil
}

// finish checks the two files and settles what the options turn on, as
// specdiff's spec_diff: a tolerance turns on the comparison number by
// number with off-by-one allowed, it or --floatcompare skips blank lines,
// and a skip count alone compares numbers too.
func (a *specdiffArgs) finish() (Diff, error) {
	if len(a.files) != 2 {
		return a.d, fmt.Errorf("%d files (%s), want the expected output and the output", len(a.files), clipText(strings.Join(a.files, " ")))
	}
	a.d.Expected, a.d.Output = a.files[0], a.files[1]
	if a.tolerant {
		a.d.Obiwan = true
	}
	if a.tolerant || a.float {
		a.d.CW = true
	}
	a.d.Numeric = a.tolerant || a.float || a.d.SkipTol > 0
	return a.d, nil
}
