package remote

import (
	"context"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Cleaned is what Clean removed from a device and what it kept.
type Cleaned struct {
	Binaries []string // corepin-<hash> binaries removed
	Parts    []string // partial copies of pushes that failed
	Runs     []string // runs that ended and were pulled
	// Kept are the binaries kept: the one this corepin pushes and those
	// of running runs.
	Kept []string
	// Left are the runs kept: running, or not pulled yet.
	Left []JobInfo
}

// The names of corepin's binaries and of their partial copies on a
// device, compiled when Clean first needs them rather than at every
// corepin's start.
var (
	binaryName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^corepin-[0-9a-f]{16}$`) })
	partName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^corepin-[0-9a-f]{16}\.part-[0-9a-f]{8}$`) })
)

// Clean removes from a device the files of corepin's that nothing needs:
// binaries other than the one this corepin would push (h.Binaries, when
// it has one ready) and those running runs use, partial copies that
// failed pushes left, and runs that ended and were pulled (kept with
// --keep-remote). A run not pulled yet stays, as does everything that is
// not corepin's.
func (h *Host) Clean(ctx context.Context, spec string) (*Device, Cleaned, error) {
	d, _, err := (&Host{Options: h.Options}).Device(ctx, spec, nil)
	if err != nil {
		return nil, Cleaned{}, err
	}
	defer d.Target.Close()
	current := ""
	if h.Binaries != nil {
		if local := h.Binaries.Ready(d.Platform); local != "" {
			if hash, err := Hash(local); err == nil {
				current = d.Folder + "/corepin-" + hash
			}
		}
	}
	c, err := d.Clean(ctx, current)
	return d, c, err
}

// Clean removes what Host.Clean says, keeping the binary current (a
// device path; "" for none).
func (d *Device) Clean(ctx context.Context, current string) (Cleaned, error) {
	var c Cleaned
	jobs, err := d.Jobs(ctx)
	if err != nil {
		return c, err
	}
	keep := map[string]bool{current: true}
	var runs []string
	for _, j := range jobs {
		switch {
		case j.Running:
			if len(j.Command) > 0 {
				keep[j.Command[0]] = true // corepin starts itself again
			}
			c.Left = append(c.Left, j)
		case j.Pulled:
			runs = append(runs, d.runs()+"/"+j.ID)
			c.Runs = append(c.Runs, j.ID)
		default:
			c.Left = append(c.Left, j)
		}
	}
	var out strings.Builder
	if err := runChecked(ctx, d.Target, "listing "+d.Folder, "cd "+d.Folder+" 2> /dev/null || exit 0; for f in corepin-*; do echo \"$f\"; done", &out); err != nil {
		return c, err
	}
	var files []string
	for _, name := range strings.Fields(out.String()) {
		p := path.Join(d.Folder, name)
		switch {
		case partName().MatchString(name):
			c.Parts = append(c.Parts, name)
			files = append(files, p)
		case binaryName().MatchString(name) && keep[p]:
			c.Kept = append(c.Kept, name)
		case binaryName().MatchString(name):
			c.Binaries = append(c.Binaries, name)
			files = append(files, p)
		}
	}
	if len(files)+len(runs) == 0 {
		return c, nil
	}
	cmd := "true"
	if len(files) > 0 {
		cmd += " && rm -f " + strings.Join(files, " ")
	}
	if len(runs) > 0 {
		cmd += " && rm -rf " + strings.Join(runs, " ")
	}
	for _, p := range append(files, runs...) {
		if err := safePath(p); err != nil {
			return Cleaned{}, err
		}
	}
	if err := runChecked(ctx, d.Target, "cleaning "+d.Folder, cmd, nil); err != nil {
		return Cleaned{}, err
	}
	return c, nil
}
