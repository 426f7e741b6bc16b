package launch

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/session"
)

// procEventMessage is a netlink message from the process events
// connector as the kernel lays it out: nlmsghdr, cn_msg, proc_event with
// the event's data (for exec and exit: process_pid, process_tgid, then
// more that corepin does not read).
func procEventMessage(idx uint32, seq, ack uint32, what uint32, at uint64, data ...uint32) []byte {
	ne := binary.NativeEndian
	ev := ne.AppendUint32(nil, what)
	ev = ne.AppendUint32(ev, 1) // cpu
	ev = ne.AppendUint64(ev, at)
	for _, d := range data {
		ev = ne.AppendUint32(ev, d)
	}
	cn := ne.AppendUint32(nil, idx)
	cn = ne.AppendUint32(cn, cnValProc)
	cn = ne.AppendUint32(cn, seq)
	cn = ne.AppendUint32(cn, ack)
	cn = ne.AppendUint16(cn, uint16(len(ev)))
	cn = ne.AppendUint16(cn, 0)
	cn = append(cn, ev...)
	msg := ne.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(cn)))
	msg = ne.AppendUint16(msg, unix.NLMSG_DONE)
	msg = ne.AppendUint16(msg, 0)
	msg = ne.AppendUint32(msg, seq)
	msg = ne.AppendUint32(msg, 0)
	msg = append(msg, cn...)
	for len(msg)%4 != 0 {
		msg = append(msg, 0)
	}
	return msg
}

func TestParseProcEvents(t *testing.T) {
	execMsg := procEventMessage(cnIdxProc, 7, 0, procEventExec, 5_000_000_123, 4242, 4242)
	exitMsg := procEventMessage(cnIdxProc, 8, 0, procEventExit, 5_001_000_000, 4242, 4242, 0, 17, 1, 1)
	tests := []struct {
		name string
		in   []byte
		want []procEvent
	}{
		{"exec", execMsg, []procEvent{{what: procEventExec, at: 5_000_000_123, pid: 4242, tgid: 4242}}},
		// The exit of a thread: process_pid is the thread, process_tgid its process.
		{"exit of a thread", procEventMessage(cnIdxProc, 1, 0, procEventExit, 9, 4250, 4242, 0, 0, 1, 1),
			[]procEvent{{what: procEventExit, at: 9, pid: 4250, tgid: 4242}}},
		{"two in one datagram", append(append([]byte{}, execMsg...), exitMsg...), []procEvent{
			{what: procEventExec, at: 5_000_000_123, pid: 4242, tgid: 4242},
			{what: procEventExit, at: 5_001_000_000, pid: 4242, tgid: 4242},
		}},
		// The kernel's answer to a listen request: PROC_EVENT_NONE, the
		// request's ack number plus one, the errno. (The sequence number
		// is the kernel's own count of the messages it sent.)
		{"acknowledgement", procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, 0, 0), []procEvent{{what: procEventNone, at: 3, ack: 4243}}},
		{"refused", procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, uint32(unix.EPERM), 0),
			[]procEvent{{what: procEventNone, at: 3, ack: 4243, err: uint32(unix.EPERM)}}},
		{"another connector user", procEventMessage(cnIdxProc+1, 1, 0, procEventExec, 1, 1, 1), nil},
		{"no event data", procEventMessage(cnIdxProc, 1, 0, procEventExec, 1), nil},
		{"cut in the cn_msg", execMsg[:unix.SizeofNlMsghdr+10], nil},
		{"cut in the event", execMsg[:len(execMsg)-4], nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		if got := parseProcEvents(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// The command's span starts at its first exec at or after the launcher's
// clock reading (the launcher's own exec comes before), ends at its main
// thread's exit, and ignores other processes and threads.
func TestCommandSpan(t *testing.T) {
	const pid = 4242
	ev := func(what uint32, at time.Duration, p int) procEvent {
		return procEvent{what: what, at: at, pid: p, tgid: pid}
	}
	tests := []struct {
		name   string
		events []procEvent
		wall   time.Duration
		ok     bool
	}{
		{"launcher then command", []procEvent{
			ev(procEventExec, 100, pid),                                  // the launcher's own exec
			ev(procEventExit, 950, pid+1), ev(procEventExit, 960, pid+2), // its threads, ended by the exec
			ev(procEventExec, 1000, pid),
			ev(procEventExit, 1500, pid),
		}, 500, true},
		{"the command execs again", []procEvent{
			ev(procEventExec, 1000, pid), ev(procEventExec, 1200, pid), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"another process", []procEvent{
			ev(procEventExec, 1000, pid), ev(procEventExit, 1100, 77), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"an exit of an earlier owner of the PID", []procEvent{
			ev(procEventExit, 50, pid), ev(procEventExec, 1000, pid), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"no exec after the launcher's", []procEvent{ev(procEventExec, 100, pid), ev(procEventExit, 1500, pid)}, 0, false},
		{"no exit yet", []procEvent{ev(procEventExec, 1000, pid)}, 0, false},
		{"an acknowledgement", []procEvent{ev(procEventExec, 1000, pid), {what: procEventNone, at: 1400, ack: 1}}, 0, false},
	}
	for _, tt := range tests {
		s := commandSpan{pid: pid, after: 900}
		for _, e := range tt.events {
			s.add(e)
		}
		if wall, ok := s.wall(); wall != tt.wall || ok != tt.ok {
			t.Errorf("%s: wall %v, %v; want %v, %v", tt.name, wall, ok, tt.wall, tt.ok)
		}
	}
}

// parseProcEvents reads what a socket received: it must take any bytes,
// and what it returns is what the bytes say.
func FuzzParseProcEvents(f *testing.F) {
	f.Add(procEventMessage(cnIdxProc, 7, 0, procEventExec, 5_000_000_123, 4242, 4242))
	f.Add(procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, uint32(unix.EPERM), 0))
	f.Add(append(procEventMessage(cnIdxProc, 1, 0, procEventExit, 9, 4250, 4242, 0, 0, 1, 1),
		procEventMessage(cnIdxProc, 2, 0, procEventExec, 10, 1, 1)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range parseProcEvents(b) {
			if e.what != procEventNone && (e.ack != 0 || e.err != 0) {
				t.Errorf("an event with an acknowledgement's fields: %+v", e)
			}
			if e.what == procEventNone && (e.pid != 0 || e.tgid != 0) {
				t.Errorf("an acknowledgement with a PID: %+v", e)
			}
			// Written back as the kernel would write it, the event reads
			// the same.
			if e.what != procEventNone {
				again := parseProcEvents(procEventMessage(cnIdxProc, 0, 0, e.what, uint64(e.at), uint32(e.pid), uint32(e.tgid)))
				if len(again) != 1 || again[0] != e {
					t.Errorf("%+v read back as %+v", e, again)
				}
			}
		}
	})
}

// Through the launcher, the wall time of true comes from the process
// events: the command's exec to its exit, a part of the taskstats figure
// of the same run, which also holds the kernel's teardown of the
// launcher in the exec.
func TestLauncherWallFromProcEvents(t *testing.T) {
	cpu := needsTwoCPUs(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root (CAP_NET_ADMIN) for the process events and taskstats")
	}
	probe, err := listenProcEvents()
	if err != nil {
		t.Skipf("the kernel's process events: %v", err)
	}
	probe.close()
	exits, err := listenExits(fsroot.Root("/"))
	if err != nil {
		t.Skipf("the kernel's taskstats: %v", err)
	}
	defer exits.close()
	rep, err := Run(context.Background(), Config{
		Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{"true"}, Launcher: true,
	})
	if err != nil || rep.ExitCode() != 0 || rep.Start != StartLauncher {
		t.Fatalf("%v, exit %d, start %s", err, rep.ExitCode(), rep.Start)
	}
	rec, ok := exits.exitRecord(rep.Child.PID)
	if !ok || rep.execElapsed <= 0 {
		t.Fatalf("no taskstats figure of the run: record %v, launcher's age %v", ok, rep.execElapsed)
	}
	taskstats := (rec.elapsed - rep.execElapsed).Seconds()
	t.Logf("wall_s %.6f (%s), taskstats figure %.6f", rep.Child.WallS, rep.Child.WallSource, taskstats)
	if rep.Child.WallSource != "proc_events" || rep.Child.WallS <= 0 || rep.Child.WallS >= taskstats {
		t.Errorf("wall_s %v (%s): want proc_events, positive and below the taskstats figure %v", rep.Child.WallS, rep.Child.WallSource, taskstats)
	}
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
	probe, err := listenProcEvents()
	if err == nil {
		probe.close()
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
