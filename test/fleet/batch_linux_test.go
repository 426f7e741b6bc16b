package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBatchScriptExitStatus runs docs/fleet.md's batch script with srun
// and corepin stood in for by scripts that exit as told: the job ends
// with the run's failure whatever the merge does, and with the merge's
// when every run succeeded (a script that ended with merge said exit 0
// for a job whose runs failed). No Slurm is needed.
func TestBatchScriptExitStatus(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	for name, env := range map[string]string{"srun": "FAKE_SRUN", "corepin": "FAKE_COREPIN"} {
		if err := os.WriteFile(filepath.Join(bin, name), fmt.Appendf(nil, "#!/bin/sh\nexit ${%s:-0}\n", env), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "fleet.sh")
	if err := os.WriteFile(script, []byte(batchScript(t)), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ srun, merge, want int }{
		{0, 0, 0},
		{1, 0, 1}, // a run failed; the merge of the others succeeded
		{2, 1, 2},
		{0, 1, 1}, // every run succeeded; the merge failed
	} {
		cmd := exec.Command(sh, script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "SLURM_SUBMIT_DIR="+dir, "SLURM_CPUS_PER_TASK=2", "SLURMD_NODENAME=n1",
			fmt.Sprintf("FAKE_SRUN=%d", c.srun), fmt.Sprintf("FAKE_COREPIN=%d", c.merge))
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != c.want {
			t.Errorf("srun exits %d, merge %d: the job exits %d, want %d\n%s", c.srun, c.merge, got, c.want, out)
		}
	}
}
