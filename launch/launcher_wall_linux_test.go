package launch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/kacct"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/session"
)

// Through the launcher, the wall time of true comes from the process
// events: the command's exec to its exit, a part of the taskstats figure
// of the same run (its life less the launcher's age just before the
// exec), which also holds the kernel's teardown of the launcher in the
// exec. The figure does not hold the teardown in the exit, which comes
// before the exit event: beside go test's other packages, true's exit once
// took 0.7 ms more than the whole figure. A span that started at the
// launcher's own exec would be above it every time, so the best of three
// runs is judged.
func TestLauncherWallFromProcEvents(t *testing.T) {
	cpu := needsTwoCPUs(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root (CAP_NET_ADMIN) for the process events and taskstats")
	}
	probe, err := kacct.ListenEvents()
	if err != nil {
		t.Skipf("the kernel's process events: %v", err)
	}
	probe.Close()
	exits, err := kacct.ListenExits(fsroot.Root("/"))
	if err != nil {
		t.Skipf("the kernel's taskstats: %v", err)
	}
	defer exits.Close()
	var runs []string
	for range 3 {
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{"true"}, Launcher: true,
		})
		if err != nil || rep.ExitCode() != 0 || rep.Start != StartLauncher {
			t.Fatalf("%v, exit %d, start %s", err, rep.ExitCode(), rep.Start)
		}
		rec, ok := exits.Record(rep.Child.PID)
		if !ok || rep.execElapsed <= 0 {
			t.Fatalf("no taskstats figure of the run: record %v, launcher's age %v", ok, rep.execElapsed)
		}
		taskstats := (rec.Elapsed - rep.execElapsed).Seconds()
		if rep.Child.WallSource != "proc_events" || rep.Child.WallS <= 0 {
			t.Fatalf("wall_s %v (%s): want proc_events, positive", rep.Child.WallS, rep.Child.WallSource)
		}
		if rep.Child.WallS < taskstats {
			return
		}
		runs = append(runs, fmt.Sprintf("%.6f s against %.6f s", rep.Child.WallS, taskstats))
	}
	t.Errorf("wall_s was never below the taskstats figure: %s", strings.Join(runs, "; "))
}

// The listener is closed on every way out of a launcher start: after the
// command ran, and when it could not be started.
func TestLauncherClosesItsListener(t *testing.T) {
	cpu := needsTwoCPUs(t)
	before := connectorSockets(t)
	for _, args := range [][]string{{"true"}, {"/nonexistent/program"}} {
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: args, Launcher: true,
		})
		if err != nil {
			t.Fatalf("%s: %v", args[0], err)
		}
		if after := connectorSockets(t); after != before {
			t.Errorf("%s (exit %d): %d netlink connector sockets open before, %d after", args[0], rep.ExitCode(), before, after)
		}
	}
}

// connectorSockets counts this process's NETLINK_CONNECTOR sockets.
func connectorSockets(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]bool{}
	for _, fd := range fds {
		link, _ := os.Readlink("/proc/self/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			mine[strings.TrimSuffix(inode, "]")] = true
		}
	}
	table, err := os.ReadFile("/proc/self/net/netlink")
	if err != nil {
		t.Skipf("needs /proc/self/net/netlink: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 10 && f[1] == fmt.Sprint(unix.NETLINK_CONNECTOR) && mine[f[9]] {
			n++
		}
	}
	return n
}

// launchWall starts true through the launcher and prints where its wall
// time came from, and whether this process may listen to process events.
func launchWall() int {
	probe, err := kacct.ListenEvents()
	if err == nil {
		probe.Close()
	}
	rep, rerr := Run(context.Background(), Config{
		Request: session.Request{CPU: mustTarget(), Ladder: session.AffinityOnly()}, Args: []string{"true"}, Launcher: true,
	})
	if rerr != nil {
		fmt.Println("error:", rerr)
		return 1
	}
	fmt.Printf("listen=%v start=%s exit=%d wall_source=%s positive=%v\n", err == nil, rep.Start, rep.ExitCode(), rep.Child.WallSource, rep.Child.WallS > 0)
	return 0
}

// Unprivileged, a launcher start still has a wall time, and says which
// source it came from: the process events where the kernel lets anyone
// listen (recent kernels do), corepin's clock where it does not.
func TestLauncherWallAsNobody(t *testing.T) {
	needsTwoCPUs(t)
	cmd := nobody.Command(t, nobody.Executable(t))
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=launchwall")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	got := strings.TrimSpace(string(out))
	want := "listen=false start=launcher exit=0 wall_source=clock positive=true"
	if strings.HasPrefix(got, "listen=true") {
		want = "listen=true start=launcher exit=0 wall_source=proc_events positive=true"
	}
	if got != want {
		t.Errorf("as nobody: %s\nwant %s", got, want)
	}
}

// Outside the initial PID namespace the kernel sends no process events
// (and ignores the request to listen without a word): a launcher start
// says so by its figure's source, taskstats or corepin's clock.
func TestLauncherWallOutsideTheInitialPIDNamespace(t *testing.T) {
	needsTwoCPUs(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a PID namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", self)
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=launchwall")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in a PID namespace: %v\n%s", err, out)
	}
	got := strings.TrimSpace(string(out))
	if got != "listen=false start=launcher exit=0 wall_source=clock positive=true" &&
		got != "listen=false start=launcher exit=0 wall_source=taskstats positive=true" {
		t.Errorf("in a PID namespace: %s\nwant no listener, a start through the launcher, exit 0 and a positive wall time from taskstats or the clock", got)
	}
}
