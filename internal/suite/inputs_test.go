package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Made inputs are the same bytes everywhere: their digests are held here,
// so that a change to the generator (which would change every recorded
// signature) fails.
func TestInputsAreTheSameEverywhere(t *testing.T) {
	content := "print('hi')\n"
	s, err := Parse("s.toml", []byte(`[settings]
work = true
[[benchmark]]
name = "b"
cmd = "true"
  [[benchmark.input]]
  file = "text"
  text_bytes = 100000
  [[benchmark.input]]
  file = "src/gen.c"
  c_functions = 20
  [[benchmark.input]]
  file = "hi.py"
  content = "`+strings.TrimSuffix(content, "\n")+`\n"
`))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := s.Prepare(work); err != nil {
		t.Fatal(err)
	}
	if got := s.WorkDir(s.Benchmarks[0]); got != filepath.Join(work, "b") {
		t.Errorf("work folder %s", got)
	}
	for file, want := range map[string]string{
		"text":      "a00ffbeca61105bebe4a7c57af2d7bd53090999d32efa84cd805c7e40cd9a563",
		"src/gen.c": "e285ce8988ee1c663e96e7767d13583e3b29d3f32439007010edc895270a675b",
		"hi.py":     "caf026f25d7140209f98072605307a438914b9ce6f3c14b23d15d9667241de52",
	} {
		data, err := os.ReadFile(filepath.Join(work, "b", file))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: %d bytes of SHA-256 %x, want %s", file, len(data), sum, want)
		}
	}
	if err := s.Prepare(work); err == nil {
		t.Error("inputs made twice over the same files")
	}
}
