package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// crashedFolder writes, under dir, a results folder as a corepin killed
// mid-run leaves it: run.json says running, written by a process that is
// gone, and the finished runs are in journal.jsonl alone.
func crashedFolder(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../results/testdata/merge/cpu0/run.json")
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	run["state"] = "running"
	run["finished"] = nil
	run["score"] = nil
	run["writer"] = map[string]any{"host": host, "pid": gone.Process.Pid, "start_ticks": 1}
	var journal bytes.Buffer
	for _, b := range run["benchmarks"].([]any) {
		bench := b.(map[string]any)
		for _, r := range bench["runs"].([]any) {
			line, _ := json.Marshal(map[string]any{"benchmark": bench["name"], "record": r})
			journal.Write(append(line, '\n'))
		}
		bench["runs"] = []any{}
	}
	folder := filepath.Join(dir, "20261201-090000-crashed")
	os.Mkdir(folder, 0o755)
	out, _ := json.MarshalIndent(run, "", "  ")
	os.WriteFile(filepath.Join(folder, "run.json"), out, 0o644)
	os.WriteFile(filepath.Join(folder, "journal.jsonl"), journal.Bytes(), 0o644)
	return folder
}

// listing is every file of a folder with its content.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

// TestViewsOfACrashedFolderWriteNothing: report, compare and merge of a
// crashed folder render from its run.json and journal without rewriting
// them; report writes only its page and its trace into it.
func TestViewsOfACrashedFolderWriteNothing(t *testing.T) {
	folder := crashedFolder(t, t.TempDir())
	other := crashedFolder(t, t.TempDir()) // compare refuses one folder twice
	before := listing(t, folder)
	page := filepath.Join(t.TempDir(), "p.html")
	for _, args := range [][]string{{"report", folder}, {"compare", folder, other}, {"compare", other, folder}, {"merge", "--out", page, folder}} {
		if out, errOut, code := corepin(t, args...); code != 0 || !strings.Contains(out+errOut, "did not finish") && args[0] == "report" {
			t.Errorf("corepin %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	after := listing(t, folder)
	delete(after, filepath.Join(folder, "report.html"))
	delete(after, filepath.Join(folder, "trace.json"))
	for p, data := range before {
		if after[p] != data {
			t.Errorf("a view changed %s", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("a view added files: %d before, %d after (the page and the trace aside)", len(before), len(after))
	}
}

// TestReportOfAReadOnlyCrashedFolder: a crashed folder on a read-only
// file system (a CI artifact, an archive) is rendered: its page goes to
// $TMPDIR, said, or to --out.
func TestReportOfAReadOnlyCrashedFolder(t *testing.T) {
	disk := t.TempDir()
	if err := unix.Mount("tmpfs", disk, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=4m,mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs to make read-only (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(disk, unix.MNT_DETACH) })
	folder := crashedFolder(t, disk)
	before := listing(t, folder)
	if err := unix.Mount("", disk, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		t.Skipf("cannot make the tmpfs read-only: %v", err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out, errOut, code := corepin(t, "report", folder)
	lines := strings.Fields(out) // the page, then the trace
	if code != 0 || len(lines) != 2 || filepath.Dir(lines[0]) != tmp || filepath.Dir(lines[1]) != tmp || !strings.Contains(errOut, "read-only file system") {
		t.Fatalf("report of a read-only folder: exit %d, page and trace %q\n%s", code, lines, errOut)
	}
	kept := lines[0]
	if html, err := os.ReadFile(kept); err != nil || !strings.Contains(string(html), "did not finish") {
		t.Errorf("the kept page: %v", err)
	}
	page := filepath.Join(t.TempDir(), "page.html")
	if _, errOut, code := corepin(t, "report", "--out", page, folder); code != 0 {
		t.Errorf("report --out of a read-only folder: exit %d\n%s", code, errOut)
	}
	if after := listing(t, folder); len(after) != len(before) {
		t.Errorf("the read-only folder changed: %v", after)
	}
}

// TestRunOnADiskThatFills: the disk fills up during the third run; the
// run stops, says why, and the folder that "results so far" names holds
// the two recorded runs in its run.json, stopped early, for report to
// show.
func TestRunOnADiskThatFills(t *testing.T) {
	requireExec(t)
	disk := t.TempDir()
	if err := unix.Mount("tmpfs", disk, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=2m,mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(disk, unix.MNT_DETACH) })
	dir := t.TempDir()
	suite := filepath.Join(dir, "fill.toml")
	script := `c=$(cat "$COUNT" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "$COUNT"; if [ $c -ge 3 ]; then cat /dev/zero > "$DISK/fill" 2>/dev/null; fi; exit 0`
	os.WriteFile(suite, []byte("[[benchmark]]\nname = \"fill\"\ncmd = \"sh\"\nargs = [\"-c\", "+strconv.Quote(script)+"]\nenv = { COUNT = "+strconv.Quote(filepath.Join(dir, "count"))+", DISK = "+strconv.Quote(disk)+" }\n"), 0o644)
	_, errOut, code := corepin(t, "run", suite, "--runs", "5", "--warmup", "0", "--allow-sharing", "--mode", "soft", "--accept", "any", "--quiet", "--out", filepath.Join(disk, "results"))
	if code != exitFailure || !strings.Contains(errOut, "no space left on device") {
		t.Fatalf("exit %d, want %d saying the disk is full\n%s", code, exitFailure, errOut)
	}
	i := strings.Index(errOut, "results so far: ")
	if i < 0 {
		t.Fatalf("no results so far:\n%s", errOut)
	}
	folder := strings.TrimSpace(strings.SplitN(errOut[i+len("results so far: "):], "\n", 2)[0])
	data, err := os.ReadFile(filepath.Join(folder, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		State        string `json:"state"`
		StoppedEarly string `json:"stopped_early"`
		Benchmarks   []struct {
			Runs []json.RawMessage `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 1 || len(run.Benchmarks[0].Runs) != 2 || !strings.Contains(run.StoppedEarly, "no space left on device") {
		t.Errorf("run.json of %s: state %q, stopped early %q, runs %d; want the 2 recorded runs", folder, run.State, run.StoppedEarly, len(run.Benchmarks))
	}
}
