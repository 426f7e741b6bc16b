package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"corepin.dev/corepin/internal/termsafe"
)

// WriteJobs writes the device's runs as "corepin --on T status" shows
// them: a line for the device, then one a run. The device says its
// platform, its runs' names and commands: they are shown safe.
func (d *Device) WriteJobs(w io.Writer, spec string, jobs []JobInfo) {
	fmt.Fprintf(w, "%s (%s, %s): %d runs\n", termsafe.Text(spec), termsafe.Text(d.Platform.String()), termsafe.Text(d.Platform.System), len(jobs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, j := range jobs {
		cmd := j.Command
		if len(cmd) > 0 {
			cmd = cmd[1:] // the binary's path
		}
		fmt.Fprintf(tw, "  %s\t%s\tcorepin %s\n", termsafe.Text(j.ID), termsafe.Text(j.State()), termsafe.Text(strings.Join(cmd, " ")))
	}
	tw.Flush()
}

// WriteText says what Clean removed from the device spec and what it
// kept.
func (c Cleaned) WriteText(w io.Writer, spec string) {
	fmt.Fprintf(w, "%s: removed %s, %s and %s\n", spec, count(len(c.Binaries), "old binary", "old binaries"),
		count(len(c.Parts), "partial copy", "partial copies"), count(len(c.Runs), "pulled run", "pulled runs"))
	if len(c.Kept)+len(c.Left) > 0 {
		fmt.Fprintf(w, "%s: kept %s (this corepin's, or a running run's) and %s (running, or not pulled yet: corepin --on %s status lists them)\n",
			spec, count(len(c.Kept), "binary", "binaries"), count(len(c.Left), "run", "runs"), spec)
	}
}

// count is n and the noun for one or for several.
func count(n int, one, several string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, several)
}

// WriteStatus writes the runs of each device specs name (WriteJobs); a
// device that cannot be reached does not keep the others from being
// listed, and its error is in the one returned.
func (h *Host) WriteStatus(ctx context.Context, w io.Writer, specs []string) error {
	var errs []error
	for _, spec := range specs {
		d, jobs, err := h.Status(ctx, spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d.WriteJobs(w, spec, jobs)
	}
	return errors.Join(errs...)
}

// CleanAll cleans each device specs name and says what it removed and
// kept; a device that cannot be reached does not keep the others from
// being cleaned.
func (h *Host) CleanAll(ctx context.Context, w io.Writer, specs []string) error {
	var errs []error
	for _, spec := range specs {
		_, c, err := h.Clean(ctx, spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.WriteText(w, spec)
	}
	return errors.Join(errs...)
}
