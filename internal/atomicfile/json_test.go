package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONFile: a folder is refused before the work, standard output
// passes, and what is written is the JSON made safe for a terminal.
func TestJSONFile(t *testing.T) {
	dir := t.TempDir()
	if err := JSONFile(dir).Check(); err == nil {
		t.Errorf("a folder passed the check")
	}
	if err := JSONFile("-").Check(); err != nil {
		t.Errorf("standard output: %v", err)
	}
	path := filepath.Join(dir, "report.json")
	if err := JSONFile(path).Check(); err != nil {
		t.Fatal(err)
	}
	if err := JSONFile(path).Write(map[string]string{"cmd": "a\x1bb"}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "{\n  \"cmd\": \"a\\u001bb\"\n}\n" {
		t.Errorf("wrote %q, %v", data, err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	err := JSONFile(filepath.Join(dir, "gone", "r.json")).WriteOrKeep("the report", 1)
	if err == nil || !strings.Contains(err.Error(), "the report is kept in "+os.TempDir()) {
		t.Errorf("a file in a missing folder: %v, want it kept in $TMPDIR", err)
	}
}
