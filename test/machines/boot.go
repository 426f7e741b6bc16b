package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

const (
	markBegin = "@@machine-command-begin@@"
	markEnd   = "@@machine-command-end@@"
)

// A guestRun is one boot of a shape running one command.
type guestRun struct {
	shape  shape
	kernel string   // overrides the shape's kernel when set
	accel  string   // "auto", "kvm" or "tcg"
	dir    string   // the guest command's working directory (a host path)
	env    []string // extra NAME=value for the command
	// expose are further host folders the command reads (see
	// exposeHostPaths).
	expose []string
	stdout io.Writer     // the command's output (stdout and stderr, as the console carries them)
	log    io.Writer     // the boot's own messages, shown when it fails
	limit  time.Duration // the whole boot, command included
	// results, when set, receives the files the command left in the share
	// ($MACHINE_OUT in the guest) before the share is removed.
	results func(dir string) error
}

// boot runs the command in the shape and returns its exit status.
func (g guestRun) boot(ctx context.Context, argv []string) (int, error) {
	key := g.shape.kernel
	if g.kernel != "" {
		key = g.kernel
	}
	bk, err := prepareKernel(ctx, key)
	if err != nil {
		return 0, err
	}
	cache, err := cacheDir()
	if err != nil {
		return 0, err
	}
	share, err := os.MkdirTemp(cache, "share-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(share)
	if g.shape.uid != 0 {
		// The command's user writes its results beneath it.
		if err := os.Chmod(share, 0o755); err != nil {
			return 0, err
		}
	}
	accel := g.accel
	if accel == "auto" || accel == "" {
		accel = "tcg"
		if bk.arch == "amd64" && hostArch() == "amd64" && kvmWorks(ctx, cache, bk) {
			accel = "kvm"
		}
	}
	g.accel = accel
	if err := writeShare(share, g, bk, argv); err != nil {
		return 0, err
	}
	args, err := qemuArgs(ctx, cache, g.shape, bk, accel, share)
	if err != nil {
		return 0, err
	}
	limit := g.limit
	if limit == 0 {
		limit = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	q, err := g.runQemu(ctx, bk, args)
	for boot := 1; err == nil && !q.began && ctx.Err() == nil && crashedBooting(q.console) && boot < bootTries; boot++ {
		// The kernel died before /init started the command, so nothing the
		// command does can have caused it. Under multi-threaded TCG this
		// happens now and then: an "Oops: int3", or a jump into the middle
		// of an instruction, while the kernel patches its own code on several
		// virtual CPUs at once (smt8 turns on sched_smt_present as its
		// siblings come up, and crashed so twice in a row in CI). A few more
		// boots, cheap because the crash is early, tell such a crash from a
		// kernel that cannot boot this shape.
		if g.log != nil {
			fmt.Fprintf(g.log, "--- the kernel crashed before the command started (boot %d of at most %d); booting once more\n%s", boot, bootTries, tail(q.console, 12))
		}
		q, err = g.runQemu(ctx, bk, args)
	}
	for stalls := 1; err == nil && q.stalled && ctx.Err() == nil && stalls <= stallTries; stalls++ {
		// The guest printed nothing (or only the kernel's reports of a
		// stuck CPU) for longer than a test binary's own timeout: its
		// kernel stopped, as under multi-threaded TCG it now
		// and then does, saying nothing at loglevel 1 (the nocgroup guest
		// once stayed silent for its whole 40 minutes in CI, and passed in
		// a minute and a half on the next try; on another day its first
		// boot stopped so, with a soft lockup, in two CI runs of three).
		// Up to stallTries more boots, within the guest's limit.
		if g.log != nil {
			fmt.Fprintf(g.log, "--- the guest printed nothing but the kernel's stall reports for %v; booting once more\n%s", stallLimit, tail(q.console, 12))
		}
		q, err = g.runQemu(ctx, bk, args)
	}
	if err == nil && q.began && !q.ended && !q.stalled && ctx.Err() == nil && !hasStatus(share) {
		// The guest ended in the middle of the command without its status:
		// the kernel died (at loglevel 1 it says nothing on the console),
		// as under multi-threaded TCG it now and then does (the isolcpus
		// guest once stopped so and passed on the next boot). One more boot
		// tells such a crash from one the command causes every time.
		if g.log != nil {
			fmt.Fprintf(g.log, "--- the guest stopped in the middle of the command without its status; booting once more\n%s", tail(q.console, 12))
		}
		q, err = g.runQemu(ctx, bk, args)
	}
	if err != nil {
		return 0, err
	}
	if g.results != nil {
		if err := g.results(share); err != nil {
			return 0, err
		}
	}
	data, rerr := os.ReadFile(filepath.Join(share, "status"))
	if rerr == nil && q.ended {
		return strconv.Atoi(strings.TrimSpace(string(data)))
	}
	why := "the guest stopped before the command finished"
	switch {
	case ctx.Err() != nil:
		why = fmt.Sprintf("the guest did not finish within %v", limit)
	case q.stalled:
		why = fmt.Sprintf("the guest printed nothing for %v, on %d boots", stallLimit, stallTries+1)
	case !q.began:
		why = "the guest stopped before the command started"
	}
	if g.log != nil {
		fmt.Fprintf(g.log, "--- boot console\n%s--- qemu %s\n%s", tail(q.console, 40), strings.Join(args, " "), q.stderr)
	}
	return 0, fmt.Errorf("%s %s on %s: %s (qemu: %v)", g.shape.name, key, bk.version, why, q.wait)
}

// bootTries bounds the boots of one guest whose kernel crashes before the
// command starts.
const bootTries = 4

// stallLimit is how long a guest may print nothing on its console before
// it is taken for stopped: longer than a test binary's own -test.timeout
// (9 minutes, see runTests), so that a test that hangs names itself
// first; a guest prints a line for each check and each package. The
// slowest package in a guest (launch's on smt8) takes under two minutes
// under TCG here, so a stopped kernel costs ten minutes, not fifteen.
const stallLimit = 10 * time.Minute

// stallTries bounds the boots after a guest whose kernel stopped.
const stallTries = 2

// A qemuRun is what one qemu process left: whether the command began and
// ended, whether it was stopped for printing nothing for stallLimit, the
// console outside the command's markers, qemu's own stderr and how it
// exited.
type qemuRun struct {
	began, ended bool
	stalled      bool
	console      string
	stderr       string
	wait         error
}

// runQemu boots the guest once and waits for qemu to exit.
func (g guestRun) runQemu(ctx context.Context, bk bootKernel, args []string) (qemuRun, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemuBinary(bk.arch), args...)
	console, err := cmd.StdoutPipe()
	if err != nil {
		return qemuRun{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return qemuRun{}, fmt.Errorf("starting qemu: %w", err)
	}
	var bootLog bytes.Buffer
	var q qemuRun
	var stalled atomic.Bool
	quiet := time.AfterFunc(stallLimit, func() {
		stalled.Store(true)
		cancel()
	})
	q.began, q.ended = copyCommandOutput(console, g.stdout, &bootLog, func() { quiet.Reset(stallLimit) })
	quiet.Stop()
	q.wait = cmd.Wait()
	q.stalled = stalled.Load()
	q.console, q.stderr = bootLog.String(), stderr.String()
	return q, nil
}

// crashedBooting reports whether a boot console shows the kernel dying of
// a fault of its own; not of /init ending, which a broken setup causes
// every time.
func crashedBooting(console string) bool {
	return strings.Contains(console, "Kernel panic - not syncing") && !strings.Contains(console, "Attempted to kill init")
}

// copyCommandOutput passes the console's lines between the markers to w
// (with the serial line's CRs removed) and keeps the rest in log; it calls
// heard for every line.
func copyCommandOutput(console io.Reader, w io.Writer, log *bytes.Buffer, heard func()) (began, ended bool) {
	r := bufio.NewReader(console)
	for {
		line, err := r.ReadString('\n')
		if len(line) > 0 {
			clean := strings.TrimRight(line, "\r\n")
			if !kernelStall(clean) {
				heard()
			}
			switch {
			case strings.HasSuffix(clean, markBegin):
				began = true
			case strings.HasSuffix(clean, markEnd) && began:
				ended = true
			case began && !ended && w != nil:
				io.WriteString(w, strings.ReplaceAll(line, "\r\n", "\n"))
			default:
				log.WriteString(clean + "\n")
			}
		}
		if err != nil {
			return began, ended
		}
	}
}

// kernelStall reports whether a console line is the kernel's own report
// of a CPU that stopped scheduling (a soft or hard lockup, an RCU stall).
// Such lines do not count as the guest being heard: a kernel stuck so
// under multi-threaded TCG repeats them every half minute (the nocgroup
// guest said "soft lockup - CPU#0 stuck for 719s!" and nothing else for
// twelve minutes), and is taken for stopped after stallLimit, its last
// lines shown, and booted once more.
func kernelStall(line string) bool {
	for _, s := range []string{"soft lockup - CPU#", "Watchdog detected hard LOCKUP", "rcu_sched self-detected stall", "rcu: INFO: rcu_", "detected stalls on CPUs"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

func tail(s string, lines int) string {
	parts := strings.SplitAfter(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "")
}

// writeShare puts the shape's setup (run by /init as busybox, before the
// chroot) and the command (run in the chroot) into the results share.
func writeShare(share string, g guestRun, bk bootKernel, argv []string) error {
	var setup strings.Builder
	setup.WriteString("# the shape's setup, sourced by /init before the command\n")
	if bk.arch == "arm64" {
		cache, _ := cacheDir()
		// The host's programs are amd64: lay the arm64 userland over /usr.
		fmt.Fprintf(&setup, "mount --bind /host%s /host/usr || die 'cannot mount the arm64 userland'\n",
			filepath.Join(cache, "arm64-root", "usr"))
	}
	if !g.shape.noCgroup {
		setup.WriteString("mount -t cgroup2 cgroup2 /host/sys/fs/cgroup || die 'cannot mount cgroup2'\n")
	}
	for _, c := range g.shape.offline {
		fmt.Fprintf(&setup, "echo 0 > /sys/devices/system/cpu/cpu%d/online || die 'cannot take CPU %d offline'\n", c, c)
	}
	if c := g.shape.unplug; c >= 0 {
		// Wait for the unplug check's word that its pinned command runs
		// (unplug.go in the share), then take c offline 1 s later, so
		// that the watcher has samples from before, and bring it back 2 s
		// after that; the times go to the share. (A task pinned to c was
		// the sign before: corepin's own thread is, before the command
		// starts, and under TCG the watcher's start can take longer than
		// the second.)
		fmt.Fprintf(&setup, `(
	until [ -e /host/tmp/machine/unplug.go ]; do sleep 0.1; done
	sleep 1
	echo 0 > /sys/devices/system/cpu/cpu%[1]d/online && echo "offline $(cat /proc/uptime)" >> /host/tmp/machine/unplug.log
	sleep 2
	echo 1 > /sys/devices/system/cpu/cpu%[1]d/online && echo "online $(cat /proc/uptime)" >> /host/tmp/machine/unplug.log
) &
`, c)
	}
	dir := g.dir
	if dir == "" {
		dir = "/"
	}
	exposeHostPaths(&setup, g.shape.uid, append([]string{dir, moduleRootOrEmpty()}, g.expose...))
	if err := os.WriteFile(filepath.Join(share, "setup.sh"), []byte(setup.String()), 0o644); err != nil {
		return err
	}

	var cmd strings.Builder
	cmd.WriteString("cd " + shellQuote(dir) + " || exit 125\n")
	env := []string{
		"HOME=/tmp/home", "TERM=dumb", "TMPDIR=/tmp",
		"MACHINE_SHAPE=" + g.shape.name, "MACHINE_KERNEL=" + bk.key, "MACHINE_OUT=/tmp/machine/out",
		// How many CPUs the host runs the guest's on: tests whose figures
		// depend on it (a busy virtual CPU waits for a host CPU) read it.
		"COREPIN_HOST_CPUS=" + strconv.Itoa(runtime.NumCPU()),
		// kvm or tcg: under TCG, timing inside the guest measures the host.
		"MACHINE_ACCEL=" + g.accel,
		"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	}
	env = append(env, g.env...)
	cmd.WriteString("mkdir -p /tmp/machine/out\n")
	run := "exec"
	if u := g.shape.uid; u != 0 {
		// The user's own folders; then no capability is kept, inherited
		// or to be had from a file's (an empty bounding set).
		fmt.Fprintf(&cmd, "chown %[1]d:%[1]d /tmp/machine/out /tmp/home || exit 125\n", u)
		run = fmt.Sprintf("exec setpriv --reuid=%[1]d --regid=%[1]d --clear-groups --inh-caps=-all --bounding-set=-all", u)
	}
	cmd.WriteString(run + " env -i")
	for _, e := range env {
		cmd.WriteString(" " + shellQuote(e))
	}
	for _, a := range argv {
		cmd.WriteString(" " + shellQuote(a))
	}
	cmd.WriteString("\n")
	return os.WriteFile(filepath.Join(share, "command.sh"), []byte(cmd.String()), 0o644)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func qemuBinary(arch string) string {
	if arch == "arm64" {
		return "qemu-system-aarch64"
	}
	return "qemu-system-x86_64"
}

func hostArch() string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return ""
	}
	switch strings.TrimSpace(string(out)) {
	case "x86_64":
		return "amd64"
	case "aarch64":
		return "arm64"
	}
	return ""
}

// qemuArgs is the command line for one boot of shape s.
func qemuArgs(ctx context.Context, cache string, s shape, bk bootKernel, accel, share string) ([]string, error) {
	mem := s.memMiB
	if mem == 0 {
		mem = 1024
	}
	cmdline := "quiet loglevel=1 panic=-1 " + s.cmdline
	var args []string
	if bk.arch == "arm64" {
		args = []string{"-machine", "virt", "-cpu", "cortex-a57"}
		cmdline = "console=ttyAMA0 " + cmdline
	} else {
		args = []string{"-machine", "q35"}
		cpu := s.cpu
		if cpu == "" {
			cpu = "max"
		}
		if accel == "kvm" {
			cpu = "host"
		} else {
			cmdline += tcgCmdline
		}
		args = append(args, "-cpu", cpu)
		cmdline = "console=ttyS0 " + cmdline
	}
	if accel == "kvm" {
		args = append(args, "-accel", "kvm")
	} else {
		args = append(args, "-accel", "tcg,thread=multi,tb-size=512")
	}
	args = append(args,
		"-m", strconv.Itoa(mem), "-smp", s.smp,
		"-nodefaults", "-nographic", "-no-reboot", "-serial", "stdio",
		"-kernel", bk.image, "-initrd", bk.initrd,
		"-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
		"-virtfs", "local,path="+share+",mount_tag=results,security_model=none",
	)
	args = append(args, s.extra...)
	if len(s.capacities) > 0 {
		dtb, err := deviceTree(ctx, cache, s, args)
		if err != nil {
			return nil, err
		}
		args = append(args, "-dtb", dtb)
	}
	return append(args, "-append", strings.TrimSpace(cmdline)), nil
}

// tcgCmdline keeps an x86 kernel under multi-threaded TCG from patching
// its sched_clock_stable key while the guest runs: QEMU 7.2 lets another
// virtual CPU run into the half-patched jump ("Oops: int3" in
// sched_clock_cpu, 3 of 20 boots of smt8 here). TCG's TSC fails the
// watchdog anyway, so the clocksource stays hpet. (nohz=off also kept the
// timers' keys still, but the ticks of idle virtual CPUs made the smt8
// tests take twice as long; the rare crash left is booted again.)
const tcgCmdline = " tsc=unstable"

// kvmWorks reports whether this host's KVM boots the kernel, tried once
// per host kernel and kernel and remembered in the cache: some hosts expose
// /dev/kvm that only runs specially built guests (nested PVM), and a stock
// kernel then stalls in early boot.
func kvmWorks(ctx context.Context, cache string, bk bootKernel) bool {
	if _, err := os.Stat("/dev/kvm"); err != nil {
		return false
	}
	rel, _ := exec.Command("uname", "-r").Output()
	memo := filepath.Join(cache, "kvm", strings.TrimSpace(string(rel))+"-"+bk.key)
	if data, err := os.ReadFile(memo); err == nil {
		return strings.TrimSpace(string(data)) == "yes"
	}
	probe := guestRun{shape: shape{name: "kvm-probe", kernel: bk.key, smp: "1", unplug: -1}, accel: "kvm", limit: 20 * time.Second}
	status, err := probe.boot(ctx, []string{"true"})
	ok := err == nil && status == 0
	verdict := "no"
	if ok {
		verdict = "yes"
	}
	os.MkdirAll(filepath.Dir(memo), 0o755)
	os.WriteFile(memo, []byte(verdict+"\n"), 0o644)
	if !ok && !errors.Is(ctx.Err(), context.Canceled) {
		fmt.Fprintf(os.Stderr, "machines: KVM does not boot %s here; using TCG (remembered in %s)\n", bk.key, memo)
	}
	return ok
}

func cmdRun(ctx context.Context, args []string) int {
	fs := newFlags("run")
	name := fs.String("shape", "smt8", "the machine shape (see 'shapes')")
	kern := fs.String("kernel", "", "boot this kernel instead of the shape's (6.1-amd64, 6.12-amd64, 6.1-arm64, uclamp)")
	accel := fs.String("accel", "auto", "auto (KVM if it boots the kernel, else TCG), kvm or tcg")
	limit := fs.Duration("timeout", 30*time.Minute, "stop the guest after this long")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "machines run: no command (run -shape NAME -- CMD ARGS…)")
		return exitUsage
	}
	s, err := lookupShape(*name)
	if err != nil {
		return fail("%v", err)
	}
	wd, _ := os.Getwd()
	g := guestRun{shape: s, kernel: *kern, accel: *accel, dir: wd, stdout: os.Stdout, log: os.Stderr, limit: *limit}
	status, err := g.boot(ctx, argv)
	if err != nil {
		return fail("%v", err)
	}
	return status
}

// exposeHostPaths makes the host's folders that the command needs (its
// working folder, the source tree, the built binaries, the module cache)
// visible at the same paths in the guest. A folder under /tmp is hidden
// by the guest's own tmpfs there; for a shape whose command runs as
// another user, /root (0700 on the host) is hidden by an empty tmpfs, as
// it is out of that user's reach, and the folders under it are shown
// through it. Each is bound in read-only from beneath the guest's mounts.
func exposeHostPaths(setup *strings.Builder, uid int, want []string) {
	if uid != 0 {
		setup.WriteString("mount -t tmpfs -o mode=0755 tmpfs /host/root || die 'cannot hide /root'\n")
	}
	var paths []string
	for _, p := range want {
		hidden := strings.HasPrefix(p, "/tmp/") || uid != 0 && strings.HasPrefix(p, "/root/")
		if hidden && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return
	}
	// A bind without MS_REC shows the 9p tree alone, without the guest's
	// tmpfs over its /tmp.
	setup.WriteString("mkdir -p /hostbelow && mount -o bind /host /hostbelow || die 'cannot see beneath the guest mounts'\n")
	for _, p := range paths {
		fmt.Fprintf(setup, "mkdir -p %[1]s && mount -o bind %[2]s %[1]s || die 'cannot show %[3]s in the guest'\n",
			shellQuote("/host"+p), shellQuote("/hostbelow"+p), p)
	}
}

// moduleRootOrEmpty is corepin's source tree when the tool runs inside it.
func moduleRootOrEmpty() string {
	root, err := moduleRoot(context.Background())
	if err != nil {
		return ""
	}
	return root
}

// hasStatus says whether the command in the guest wrote its exit status.
func hasStatus(share string) bool {
	_, err := os.Stat(filepath.Join(share, "status"))
	return err == nil
}
