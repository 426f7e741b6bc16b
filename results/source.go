package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"corepin.dev/corepin/internal/inputfile"
)

// Source is the file another tool wrote (SPEC's runcpu, hyperfine, pyperf,
// Geekbench) from which an imported run's figures come. The file is kept
// byte for byte in the results folder beside run.json, with its hash, so
// that every imported number can be traced to the line it was read from.
// An imported run carries no scheduling evidence of corepin's own unless
// it was joined with corepin's reports: where it ran is "not recorded".
type Source struct {
	// Tool names the program that wrote the file: one of the Kind*
	// import kinds ("spec", "hyperfine", "pyperf", "geekbench").
	Tool string `json:"tool"`
	// Version is the tool's version as its file says; "" when it says none.
	Version string `json:"version,omitempty"`
	// File is the kept copy, relative to the results folder.
	File string `json:"file"`
	// Name is the file's base name where it was read.
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Metadata is what the file says of itself and its machine beside
	// the figures corepin reads (pyperf's metadata, hyperfine's, the
	// fields of a Geekbench export other than its scores), each value as
	// the file holds it; a long one is left to the kept file.
	Metadata map[string]RawJSON `json:"metadata,omitempty"`
}

// RawJSON is a value of another tool's file, kept as the file writes it
// (its numbers are not turned into floats, its objects not re-ordered);
// bytes that are not JSON, which no file read gives, are written as a
// string, so that run.json is always JSON.
type RawJSON []byte

// MarshalJSON writes the value as it is, or as a string when it is not
// JSON.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	switch {
	case len(r) == 0:
		return []byte("null"), nil
	case json.Valid(r):
		return r, nil
	}
	return json.Marshal(string(r))
}

// UnmarshalJSON keeps the value's bytes.
func (r *RawJSON) UnmarshalJSON(data []byte) error {
	*r = append((*r)[:0], data...)
	return nil
}

// Describe names the file for a reader: "imported from hyperfine 1.15.0's
// bench.json".
func (s *Source) Describe() string {
	tool := s.Tool
	if s.Version != "" {
		tool += " " + s.Version
	}
	return fmt.Sprintf("imported from %s's %s", tool, s.Name)
}

// SourceDir is the folder of a results folder that holds the imported
// files, each under its own base name.
const SourceDir = "source"

// MaxSourceFile bounds an imported file: results of the tools corepin reads
// are kilobytes to a few megabytes.
const MaxSourceFile = 64 << 20

// ReadSource reads a file another tool wrote, refusing what is not a
// regular file (a FIFO would block, a device never end) and what is larger
// than MaxSourceFile. It returns the bytes and their Source, to be kept
// with KeepSource.
func ReadSource(tool, path string) ([]byte, Source, error) {
	f, err := inputfile.Open(path) // a FIFO must not hang the open
	if err != nil {
		return nil, Source{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, Source{}, err
	}
	if !st.Mode().IsRegular() {
		return nil, Source{}, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSourceFile+1))
	if err != nil {
		return nil, Source{}, err
	}
	if len(data) > MaxSourceFile {
		return nil, Source{}, fmt.Errorf("%s is larger than %d MB", path, MaxSourceFile>>20)
	}
	sum := sha256.Sum256(data)
	name := filepath.Base(path)
	return data, Source{
		Tool:   tool,
		File:   filepath.Join(SourceDir, name),
		Name:   name,
		SHA256: hex.EncodeToString(sum[:]),
		Bytes:  int64(len(data)),
	}, nil
}

// KeepSource writes the imported file's bytes into the folder, at
// src.File, atomically.
func (f *Folder) KeepSource(src Source, data []byte) error {
	if err := os.MkdirAll(filepath.Join(f.Path, SourceDir), 0o755); err != nil {
		return fmt.Errorf("keeping %s: %w", src.Name, err)
	}
	return f.WriteFile(src.File, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
