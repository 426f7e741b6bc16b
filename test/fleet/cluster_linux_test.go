package fleet

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A cluster is a one-node Slurm cluster on loopback, all of it in one
// folder: munge's key and socket, slurm.conf and cgroup.conf, the spool,
// state and log files. Its daemons run in the foreground as this test's
// children, so that they are known by their PIDs and nothing else is
// touched; commands reach it through SLURM_CONF.
type cluster struct {
	dir     string
	node    string // this machine's short host name, the node's name
	conf    string // slurm.conf
	socket  string // munged's socket
	daemons []*daemon
	// newCgroups are the hierarchies' Slurm folders that were not there
	// before the cluster started: removed when it stops.
	newCgroups []string
}

// daemon is one of the cluster's daemons.
type daemon struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when it has exited
}

// startCluster starts munged, slurmctld and slurmd, and waits until the
// node is idle. Everything is stopped and removed when the test ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "corepin-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// munged refuses a socket folder that not everyone may search, up to /.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{dir: dir, node: strings.SplitN(host, ".", 2)[0], conf: filepath.Join(dir, "etc", "slurm.conf")}
	t.Cleanup(func() { c.stop(t) })
	for _, ctl := range []string{"cpuset", "freezer"} {
		p := filepath.Join("/sys/fs/cgroup", ctl, "slurm_"+c.node)
		if _, err := os.Stat(p); os.IsNotExist(err) {
			c.newCgroups = append(c.newCgroups, p)
		}
	}
	c.startMunge(t)
	c.writeConfig(t)
	c.start(t, "slurmctld", "slurmctld", "-D", "-f", c.conf)
	c.waitFor(t, "slurmctld answers", func() bool {
		out, err := c.command("scontrol", "ping").CombinedOutput()
		return err == nil && strings.Contains(string(out), "UP")
	})
	c.start(t, "slurmd", "slurmd", "-D", "-f", c.conf)
	c.waitFor(t, "the node is idle", func() bool {
		out, err := c.command("sinfo", "-h", "-n", c.node, "-o", "%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

// startMunge makes a key and starts munged as the munge user on its own
// socket: the machine's own munged, if any, is left alone.
func (c *cluster) startMunge(t *testing.T) {
	t.Helper()
	u, err := user.Lookup("munge")
	if err != nil {
		t.Fatalf("the munge package makes a munge user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	run := filepath.Join(c.dir, "munge")     // the socket: everyone may reach it
	private := filepath.Join(run, "private") // the key, seed and log: munge's alone
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{run, 0o755}, {private, 0o700}} {
		if err := os.Mkdir(d.path, d.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d.path, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(private, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(keyFile, uid, gid); err != nil {
		t.Fatal(err)
	}
	c.socket = filepath.Join(run, "munge.socket")
	d := c.start(t, "munged", "munged", "-F", "--socket="+c.socket, "--key-file="+keyFile,
		"--pid-file="+filepath.Join(run, "munged.pid"), "--seed-file="+filepath.Join(private, "munged.seed"),
		"--log-file="+filepath.Join(private, "munged.log"))
	d.cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if err := c.launch(d); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "munged encodes a credential", func() bool {
		return exec.Command("munge", "-n", "-S", c.socket).Run() == nil
	})
}

// writeConfig writes slurm.conf and cgroup.conf: one node with this
// machine's CPUs, task/affinity to bind each task and task/cgroup to hold
// the job in a cpuset (cgroup v1 here), proctrack/cgroup to follow its
// processes in the freezer hierarchy. Memory is left unconstrained: no
// memory cgroup is made or entered.
func (c *cluster) writeConfig(t *testing.T) {
	t.Helper()
	out, err := exec.Command("slurmd", "-C").Output()
	if err != nil {
		t.Fatalf("slurmd -C: %v", err)
	}
	node := ""
	for _, f := range strings.Fields(string(out)) {
		if k, _, _ := strings.Cut(f, "="); k == "CPUs" || k == "Boards" || k == "SocketsPerBoard" || k == "CoresPerSocket" || k == "ThreadsPerCore" {
			node += " " + f
		}
	}
	if node == "" {
		t.Fatalf("slurmd -C printed no node line: %s", out)
	}
	ctld, slurmd := freePort(t), freePort(t)
	for _, d := range []string{"etc", "state", "spool", "log"} {
		if err := os.Mkdir(filepath.Join(c.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf(`ClusterName=corepin
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/cgroup
TaskPlugin=task/affinity,task/cgroup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=%[1]s NodeAddr=127.0.0.1%[6]s RealMemory=500 State=UNKNOWN
PartitionName=main Nodes=%[1]s Default=YES MaxTime=30 State=UP
`, c.node, ctld, slurmd, c.socket, c.dir, node)
	cgroup := `CgroupPlugin=autodetect
ConstrainCores=yes
ConstrainRAMSpace=no
ConstrainSwapSpace=no
ConstrainDevices=no
`
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "etc", "cgroup.conf"), []byte(cgroup), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freePort is a TCP port of loopback that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start prepares a daemon and, except for munged (which needs its user
// set first), launches it.
func (c *cluster) start(t *testing.T, name string, argv ...string) *daemon {
	t.Helper()
	d := &daemon{name: name, log: filepath.Join(c.dir, name+".out"), done: make(chan struct{})}
	d.cmd = exec.Command(argv[0], argv[1:]...)
	d.cmd.Env = c.env()
	d.cmd.SysProcAttr = &syscall.SysProcAttr{}
	if name == "munged" {
		return d
	}
	if err := c.launch(d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (c *cluster) launch(d *daemon) error {
	f, err := os.Create(d.log)
	if err != nil {
		return err
	}
	d.cmd.Stdout, d.cmd.Stderr = f, f
	if err := d.cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("starting %s: %w", d.name, err)
	}
	c.daemons = append(c.daemons, d)
	go func() {
		d.cmd.Wait()
		f.Close()
		close(d.done)
	}()
	return nil
}

// waitFor polls ready until it holds, failing the test when a daemon has
// exited or a minute has passed.
func (c *cluster) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ready() {
		for _, d := range c.daemons {
			select {
			case <-d.done:
				t.Fatalf("waiting until %s: %s exited (%v):\n%s", what, d.name, d.cmd.ProcessState, c.logs())
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute:\n%s", what, c.logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// env is this process's environment with the cluster's configuration.
func (c *cluster) env() []string {
	return append(os.Environ(), "SLURM_CONF="+c.conf)
}

// command is a Slurm client command against the cluster.
func (c *cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env()
	return cmd
}

// logs are the tails of the daemons' output and log files, for a failure.
func (c *cluster) logs() string {
	var b strings.Builder
	files := []string{filepath.Join(c.dir, "log", "slurmctld.log"), filepath.Join(c.dir, "log", "slurmd.log")}
	for _, d := range c.daemons {
		files = append(files, d.log)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}

// slurmdLog is slurmd's log so far.
func (c *cluster) slurmdLog(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, "log", "slurmd.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// stop cancels what still runs, ends the daemons it started, newest
// first (SIGTERM, SIGKILL after 20 s), and removes the cgroup folders
// Slurm made.
func (c *cluster) stop(t *testing.T) {
	if c.running("slurmctld") {
		c.command("scancel", "--full", "--quiet", "--user=root").Run()
	}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		d := c.daemons[i]
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(20 * time.Second):
			t.Errorf("%s (pid %d) did not end on SIGTERM within 20 s: killed", d.name, d.cmd.Process.Pid)
			d.cmd.Process.Kill()
			<-d.done
		}
	}
	for _, dir := range c.newCgroups {
		if err := removeCgroup(dir); err != nil {
			t.Errorf("removing Slurm's cgroup %s: %v", dir, err)
		}
	}
}

// running reports whether the named daemon was started and still runs.
func (c *cluster) running(name string) bool {
	for _, d := range c.daemons {
		if d.name == name {
			select {
			case <-d.done:
				return false
			default:
				return true
			}
		}
	}
	return false
}

// removeCgroup removes a cgroup folder and the ones below it, deepest
// first (a cgroup's files cannot be removed, only its folder, once empty).
func removeCgroup(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeCgroup(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	// A folder whose last task has just left may still be busy a moment.
	var rerr error
	for range 50 {
		if rerr = syscall.Rmdir(dir); rerr == nil || rerr == syscall.ENOENT {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return rerr
}

// job is what scontrol says of a job.
type job struct {
	id                  string
	state, exit, derive string // JobState, ExitCode, DerivedExitCode
	cpuIDs              string // the CPUs of its allocation on the node (CPU_IDs)
	stdout              string // its output file
}

// sbatch submits a batch script from dir with extra options before it,
// and returns the job's ID.
func (c *cluster) sbatch(t *testing.T, dir string, path []string, args ...string) string {
	t.Helper()
	cmd := c.command("sbatch", append([]string{"--parsable"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "PATH="+strings.Join(append(path, os.Getenv("PATH")), ":"))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sbatch %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	return id
}

// wait waits for a job to end and returns what scontrol says of it.
func (c *cluster) wait(ctx context.Context, t *testing.T, id string) job {
	t.Helper()
	for {
		j := c.show(t, id)
		switch j.state {
		case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE":
			return j
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s still %s: %v\n%s", id, j.state, ctx.Err(), c.logs())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// show is scontrol's one-line detailed record of the job.
func (c *cluster) show(t *testing.T, id string) job {
	t.Helper()
	out, err := c.command("scontrol", "-o", "-d", "show", "job", id).Output()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v", id, err)
	}
	j := job{id: id}
	for _, f := range strings.Fields(string(out)) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "JobState":
			j.state = v
		case "ExitCode":
			j.exit = v
		case "DerivedExitCode":
			j.derive = v
		case "CPU_IDs":
			j.cpuIDs = v
		case "StdOut":
			j.stdout = v
		}
	}
	return j
}
