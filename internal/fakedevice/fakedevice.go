// Package fakedevice stands in, for tests, for adb and hdc and the devices
// they reach, with the behaviours of the real tools that corepin must
// cope with:
//
//   - adb picks the one device it sees, or says "more than one
//     device/emulator" or "device 'X' not found" on standard error and
//     exits 1; over the shell protocol (Android 7 and later) it keeps the
//     command's two streams apart and passes its exit status on; before
//     it, it merges them, exits 0, and its terminal turns every "\n" into
//     "\r\n".
//   - hdc quotes each argument that holds a space in "…", the daemon
//     trims one pair of outer quotes and runs the line with sh -c, merges
//     standard error into standard output and passes no exit status on;
//     its own failures are "[Fail]…" lines on standard output, exit 0.
//
// A device is this machine seen through a private mount and hostname
// namespace: a chroot whose /data is the device's own (a folder of the
// test's), whose other folders are this machine's, whose hostname is
// localhost, and whose getprop (Android) or param (HarmonyOS) answers from
// the device's properties. A device can be unplugged while its processes
// go on, it can hang (its client answers nothing until it is killed, as
// for a phone whose USB stack stopped), and its /data can be read-only. The clients are the test binary
// itself, started through small scripts on a PATH of the test's: TestMain
// calls Dispatch first.
package fakedevice

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Device is a device of the lab.
type Device struct {
	Client string // adb or hdc
	Serial string // adb's serial, hdc's connect key
	// Props are getprop's answers on Android, param's on HarmonyOS.
	Props map[string]string
	// Old is adb before Android 7: no exit status, merged streams, CRLF.
	Old bool
}

// Lab is a set of devices and the clients that reach them.
type Lab struct {
	Root string // the devices' folders: Root/CLIENT/SERIAL
	Bin  string // adb and hdc; put it first on the PATH
}

// New makes a lab under dir whose clients are the test binary self
// (os.Args[0]). It skips the test where devices cannot be made: they
// need root, unshare and chroot.
func New(tb testing.TB, dir, self string) *Lab {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("fake devices need root (a mount namespace and chroot)")
	}
	for _, tool := range []string{"unshare", "chroot", "mount", "hostname"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Skipf("fake devices need %s (util-linux, coreutils)", tool)
		}
	}
	if out, err := exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "true").CombinedOutput(); err != nil {
		tb.Skipf("fake devices need a mount namespace: unshare: %v %s", err, out)
	}
	l := &Lab{Root: filepath.Join(dir, "devices"), Bin: filepath.Join(dir, "bin")}
	for _, d := range []string{l.Root, l.Bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, client := range []string{"adb", "hdc"} {
		script := fmt.Sprintf("#!/bin/sh\nFAKEDEVICE_CLIENT=%s FAKEDEVICE_ROOT=%s exec %s \"$@\"\n", client, quote(l.Root), quote(self))
		if err := os.WriteFile(filepath.Join(l.Bin, client), []byte(script), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return l
}

// Add makes a device; its own files (/data) are under the folder returned.
func (l *Lab) Add(tb testing.TB, d Device) string {
	tb.Helper()
	dir := filepath.Join(l.Root, d.Client, d.Serial)
	fs := filepath.Join(dir, "fs")
	for _, sub := range []string{"data/local/tmp", "system/bin", "tmp", "run"} {
		if err := os.MkdirAll(filepath.Join(fs, sub), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	// This machine's folders, mounted at each call; its symbolic links
	// (a merged /usr's /bin) as they are.
	entries, err := os.ReadDir("/")
	if err != nil {
		tb.Fatal(err)
	}
	var binds []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "data" || name == "tmp" || name == "run" || name == "system" || name == "lost+found":
		case e.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink("/" + name)
			if err == nil {
				os.Symlink(target, filepath.Join(fs, name))
			}
		case e.IsDir():
			os.Mkdir(filepath.Join(fs, name), 0o755)
			binds = append(binds, name)
		}
	}
	write := func(name, text string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			tb.Fatal(err)
		}
	}
	write("binds", strings.Join(binds, "\n")+"\n", 0o644)
	var props []string
	for k, v := range d.Props {
		props = append(props, k+"="+v)
	}
	sort.Strings(props)
	write("fs/system/props", strings.Join(props, "\n")+"\n", 0o644)
	write("fs/system/bin/getprop", getprop, 0o755)
	if d.Client == "hdc" {
		write("fs/system/bin/param", param, 0o755)
		os.Remove(filepath.Join(fs, "system/bin/getprop"))
	}
	if d.Old {
		write("old", "", 0o644)
	}
	return filepath.Join(fs, "data")
}

// getprop answers from /system/props; an unknown key is an empty line.
const getprop = `#!/bin/sh
while IFS='=' read -r k v; do [ "$k" = "$1" ] && { echo "$v"; exit 0; }; done < /system/props
echo
`

// param answers "param get KEY" from /system/props, as HarmonyOS does.
const param = `#!/bin/sh
[ "$1" = get ] || { echo "Command list: get set wait dump"; exit 0; }
while IFS='=' read -r k v; do [ "$k" = "$2" ] && { echo "$v"; exit 0; }; done < /system/props
echo "Get parameter \"$2\" fail! errNum is:106!"
`

// Unplug makes the device unreachable, or reachable again; what runs on
// it goes on.
func (l *Lab) Unplug(tb testing.TB, client, serial string, gone bool) {
	tb.Helper()
	mark := filepath.Join(l.Root, client, serial, "gone")
	if gone {
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	os.Remove(mark)
}

// Hang makes every call of the device's client wait, answering nothing,
// until it is killed or the device stops hanging; what runs on the
// device goes on.
func (l *Lab) Hang(tb testing.TB, client, serial string, hang bool) {
	tb.Helper()
	mark := filepath.Join(l.Root, client, serial, "hang")
	if hang {
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	os.Remove(mark)
}

// Alias makes the device reachable under a second serial too, as a phone
// is over USB and over the network.
func (l *Lab) Alias(tb testing.TB, client, serial, alias string) {
	tb.Helper()
	if err := os.Symlink(serial, filepath.Join(l.Root, client, alias)); err != nil {
		tb.Fatal(err)
	}
}

// FailPulls makes the device's pulls fail, or succeed again.
func (l *Lab) FailPulls(tb testing.TB, client, serial string, fail bool) {
	tb.Helper()
	mark := filepath.Join(l.Root, client, serial, "failpull")
	if fail {
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	os.Remove(mark)
}

// ReadOnly makes the device's /data read-only, or writable again.
func (l *Lab) ReadOnly(tb testing.TB, client, serial string, ro bool) {
	tb.Helper()
	mark := filepath.Join(l.Root, client, serial, "readonly")
	if ro {
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	os.Remove(mark)
}

// Env is the environment of a host command that reaches the lab: the
// clients first on the PATH, no ANDROID_SERIAL.
func (l *Lab) Env(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "ANDROID_SERIAL=") {
			out = append(out, e)
		}
	}
	return append(out, "PATH="+l.Bin+":"+os.Getenv("PATH"))
}

// Dispatch runs the client the test binary was started as, and exits;
// it returns at once when it was not started as one.
func Dispatch() {
	client, root := os.Getenv("FAKEDEVICE_CLIENT"), os.Getenv("FAKEDEVICE_ROOT")
	if client == "" || root == "" {
		return
	}
	c := &fake{client: client, root: root, stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(c.main(os.Args[1:]))
}

// fake is one call of a client.
type fake struct {
	client, root   string
	stdout, stderr io.Writer
}

func (c *fake) main(args []string) int {
	serial := ""
	if c.client == "adb" {
		serial = os.Getenv("ANDROID_SERIAL")
	}
	if len(args) >= 2 && (c.client == "adb" && args[0] == "-s" || c.client == "hdc" && args[0] == "-t") {
		serial, args = args[1], args[2:]
	}
	if len(args) == 0 {
		fmt.Fprintf(c.stderr, "%s: no command\n", c.client)
		return 1
	}
	switch {
	case args[0] == "kill-server" || args[0] == "kill" || args[0] == "start-server":
		return 0
	case args[0] == "devices" || args[0] == "list" && len(args) > 1 && args[1] == "targets":
		return c.list()
	}
	dir, why := c.device(serial)
	if why != found {
		return c.failed(why, serial)
	}
	c.hang(dir)
	switch {
	case args[0] == "shell" && len(args) > 1:
		return c.shell(dir, args[1:])
	case c.client == "adb" && args[0] == "push" && len(args) == 3,
		c.client == "hdc" && len(args) == 4 && args[0] == "file" && args[1] == "send":
		return c.copy(dir, args[len(args)-2], filepath.Join(dir, "fs", args[len(args)-1]), true)
	case c.client == "adb" && args[0] == "pull" && len(args) == 3,
		c.client == "hdc" && len(args) == 4 && args[0] == "file" && args[1] == "recv":
		remote := args[len(args)-2]
		return c.copy(dir, filepath.Join(dir, "fs", remote), filepath.Join(args[len(args)-1], filepath.Base(remote)), false)
	}
	fmt.Fprintf(c.stderr, "%s: unknown command %q\n", c.client, strings.Join(args, " "))
	return 1
}

// hang waits while the device hangs (see Lab.Hang). It looks for the mark
// a few times a second: what ends a hang in a test is the host killing
// the client, or the test ending it.
func (c *fake) hang(dir string) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "hang")); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// devices are the serials of the devices plugged in.
func (c *fake) devices() []string {
	entries, _ := os.ReadDir(filepath.Join(c.root, c.client))
	var serials []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(c.root, c.client, e.Name(), "gone")); os.IsNotExist(err) {
			serials = append(serials, e.Name())
		}
	}
	return serials
}

func (c *fake) list() int {
	if c.client == "adb" {
		fmt.Fprintln(c.stdout, "List of devices attached")
	}
	for _, s := range c.devices() {
		if c.client == "adb" {
			fmt.Fprintf(c.stdout, "%s\tdevice\n", s)
		} else {
			fmt.Fprintln(c.stdout, s)
		}
	}
	return 0
}

// selection is how a call's device was chosen, or why none was.
type selection int

const (
	found selection = iota
	none
	several
	missing
)

// device finds the device a call names, or the one there is.
func (c *fake) device(serial string) (string, selection) {
	plugged := c.devices()
	switch {
	case serial != "":
		for _, s := range plugged {
			if s == serial {
				return filepath.Join(c.root, c.client, s), found
			}
		}
		return "", missing
	case len(plugged) == 1:
		return filepath.Join(c.root, c.client, plugged[0]), found
	case len(plugged) == 0:
		return "", none
	}
	return "", several
}

// failed says, as the client does, why no device was chosen.
func (c *fake) failed(why selection, serial string) int {
	if c.client == "hdc" {
		if why == several {
			fmt.Fprintln(c.stdout, "[Fail]More than one device, use -t KEY to choose one") // this fake's wording
		} else {
			fmt.Fprintln(c.stdout, "[Fail][E001005] Device not found or connected")
		}
		return 0
	}
	switch why {
	case several:
		fmt.Fprintln(c.stderr, "adb: more than one device/emulator")
	case none:
		fmt.Fprintln(c.stderr, "adb: no devices/emulators found")
	default:
		fmt.Fprintf(c.stderr, "adb: device '%s' not found\n", serial)
	}
	return 1
}

// setup runs in the device's new namespaces: it mounts this machine's
// folders into the device's root, makes /data read-only when asked,
// names the host localhost and runs the command line with the device's
// environment.
const setup = `dir=$1; line=$2; fs=$dir/fs
while read -r d; do mount --rbind "/$d" "$fs/$d" || exit 125; done < "$dir/binds"
if [ -e "$dir/readonly" ]; then mount --bind "$fs/data" "$fs/data" && mount -o remount,bind,ro "$fs/data" || exit 125; fi
hostname localhost
exec env -i PATH=/system/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/ chroot "$fs" /bin/sh -c "$line"`

func (c *fake) shell(dir string, words []string) int {
	line := strings.Join(words, " ")
	if c.client == "hdc" {
		// The client quotes what holds a space; the daemon trims one pair.
		q := make([]string, len(words))
		for i, w := range words {
			if strings.Contains(w, " ") {
				w = `"` + w + `"`
			}
			q[i] = w
		}
		line = strings.Join(q, " ")
		if len(line) >= 2 && line[0] == '"' && line[len(line)-1] == '"' {
			line = line[1 : len(line)-1]
		}
	}
	cmd := exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "--", "/bin/sh", "-c", setup, "fake-device", dir, line)
	_, err := os.Stat(filepath.Join(dir, "old"))
	old := c.client == "adb" && err == nil
	merged := c.client == "hdc" || old
	var out bytes.Buffer
	switch {
	case old:
		cmd.Stdout, cmd.Stderr = &out, &out
	case merged:
		cmd.Stdout, cmd.Stderr = c.stdout, c.stdout
	default:
		cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	}
	err = cmd.Run()
	if old {
		c.stdout.Write(bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte("\r\n"))) // the terminal's ONLCR
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", c.client, err)
		return 1
	}
	if merged {
		return 0 // no exit status comes back
	}
	return code
}

// copy copies a file or folder between this machine and the device, as
// push (to the device) or pull.
func (c *fake) copy(dir, from, to string, push bool) int {
	if _, err := os.Stat(filepath.Join(dir, "failpull")); !push && err == nil {
		remote := strings.TrimPrefix(from, filepath.Join(dir, "fs"))
		if c.client == "hdc" {
			fmt.Fprintf(c.stdout, "[Fail]Error opening file: I/O error, path:%s\n", remote)
			return 0
		}
		fmt.Fprintf(c.stderr, "adb: error: failed to copy '%s' to '%s': I/O error\n", remote, to)
		return 1
	}
	_, err := os.Stat(filepath.Join(dir, "readonly"))
	if push && err == nil {
		if c.client == "hdc" {
			fmt.Fprintf(c.stdout, "[Fail]Error opening file: read-only file system, path:%s\n", strings.TrimPrefix(to, filepath.Join(dir, "fs")))
			return 0
		}
		fmt.Fprintf(c.stderr, "adb: error: failed to copy '%s' to '%s': remote couldn't create file: Read-only file system\n", from, strings.TrimPrefix(to, filepath.Join(dir, "fs")))
		return 1
	}
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		if c.client == "hdc" {
			fmt.Fprintf(c.stdout, "[Fail]Error opening file: %s\n", bytes.TrimSpace(out))
			return 0
		}
		fmt.Fprintf(c.stderr, "adb: error: %s\n", bytes.TrimSpace(out))
		return 1
	}
	if c.client == "hdc" {
		fmt.Fprintln(c.stdout, "FileTransfer finish, Size:1, File count = 1, time:1ms rate:1.00kB/s")
	} else {
		fmt.Fprintf(c.stdout, "%s: 1 file pushed, 0 skipped.\n", from)
	}
	return 0
}

// quote quotes s for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
