package spec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"corepin.dev/corepin/results"
)

// Write builds the import into a new results folder under out, with the
// result file kept byte for byte beside run.json, each report and curve
// written as its iteration is joined. A cancelled ctx or a failure leaves
// no folder: nothing is half written.
func (im *Import) Write(ctx context.Context, out string, data []byte) (*results.Folder, *results.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	host := "spec"
	if l := strings.TrimSpace(im.Result.Lognum); l != "" {
		host += "." + l
	}
	folder, err := results.Create(out, host, im.resultStart())
	if err != nil {
		return nil, nil, err
	}
	run, err := im.writeInto(ctx, folder, data)
	if err != nil {
		os.RemoveAll(folder.Path)
		return nil, nil, err
	}
	return folder, run, nil
}

// writeInto writes the import into the folder made for it.
func (im *Import) writeInto(ctx context.Context, folder *results.Folder, data []byte) (*results.Run, error) {
	if err := folder.KeepSource(im.Source, data); err != nil {
		return nil, err
	}
	run, err := im.Run(ctx, func(name string, content []byte) error {
		if err := os.MkdirAll(filepath.Join(folder.Path, filepath.Dir(name)), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		if err := folder.WriteFile(name, func(w io.Writer) error { _, err := w.Write(content); return err }); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	folder.DropEmptyTelemetry()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return run, folder.Save(run)
}
