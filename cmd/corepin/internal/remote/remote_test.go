package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string // the target, printed
	}{
		{"ssh://root@127.0.0.1:2222", "ssh user=root host=127.0.0.1 port=2222"},
		{"ssh://board", "ssh user= host=board port=0"},
		{"ssh://pi@[fe80::1]:22", "ssh user=pi host=fe80::1 port=22"},
		{"adb", "adb serial="},
		{"adb:R58M123ABC", "adb serial=R58M123ABC"},
		{"adb:192.168.1.20:5555", "adb serial=192.168.1.20:5555"},
		{"hdc", "hdc key="},
		{"hdc:7001005458323933328a", "hdc key=7001005458323933328a"},
	} {
		tg, err := Open(c.spec, Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", c.spec, err)
			continue
		}
		var got string
		switch v := tg.(type) {
		case *SSH:
			got = fmt.Sprintf("ssh user=%s host=%s port=%d", v.User, v.Host, v.Port)
		case *ADB:
			got = "adb serial=" + v.Serial
		case *HDC:
			got = "hdc key=" + v.Key
		}
		if got != c.want || tg.String() != c.spec {
			t.Errorf("Open(%q) = %s (%s), want %s", c.spec, got, tg, c.want)
		}
	}
	for _, bad := range []string{"", "ssh:host", "ssh://", "ssh://-oProxyCommand=x", "ssh://h:0", "ssh://h:99999", "ssh://h/x",
		"adb:-s", "adb:a b", "hdc:$(reboot)", "usb", "tcp://h"} {
		if _, err := Open(bad, Options{}); err == nil {
			t.Errorf("Open(%q): no error", bad)
		}
	}
}

// recorder is a fake client: it records each command line and answers
// with canned output.
type recorder struct {
	calls  [][]string
	answer func(argv []string) (out string, code int)
}

func (r *recorder) fake(argv []string, stdout, _ io.Writer) int {
	r.calls = append(r.calls, argv)
	out, code := "", 0
	if r.answer != nil {
		out, code = r.answer(argv)
	}
	io.WriteString(stdout, out)
	return code
}

// echoStatus answers a wrapped shell command as a device would: the
// command's output, the wrapper's echo and the marker.
func echoStatus(out string, code int) func([]string) (string, int) {
	return func([]string) (string, int) { return "\n" + out + "\n" + statusMarker + fmt.Sprint(code) + "\n", 0 }
}

func TestSSHCommandLines(t *testing.T) {
	rec := &recorder{}
	s := &SSH{Spec: "ssh://root@h:2222", User: "root", Host: "h", Port: 2222, Config: "/c", ControlDir: "/cm",
		client: client{timeouts: defaultTimeouts, fake: rec.fake}}
	ctx := context.Background()
	if _, err := s.Run(ctx, "uname -m", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Push(ctx, "/local/corepin", "/data/local/tmp/corepin-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pull(ctx, "/r/out/x", "/here"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	opts := "-F /c -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -o ControlPath=/cm/%C"
	want := []string{
		"ssh " + opts + " -p 2222 -o ControlMaster=yes -o ControlPersist=60 -N -f -- root@h",
		"ssh " + opts + " -p 2222 -o ControlMaster=no -- root@h uname -m",
		"scp -q -B " + opts + " -P 2222 -o ControlMaster=no -- /local/corepin root@h:/data/local/tmp/corepin-1",
		"scp -q -B " + opts + " -P 2222 -r -o ControlMaster=no -- root@h:/r/out/x /here",
		"ssh " + opts + " -p 2222 -O exit -- root@h",
	}
	checkCalls(t, rec.calls, want)
}

// TestSCPWithoutSFTP: a server without the SFTP subsystem (dropbear)
// makes scp close at once; the copy is tried again with scp -O.
func TestSCPWithoutSFTP(t *testing.T) {
	rec := &recorder{}
	s := &SSH{Spec: "ssh://b", Host: "b", ControlDir: "/cm", client: client{timeouts: defaultTimeouts, fake: func(argv []string, stdout, stderr io.Writer) int {
		rec.fake(argv, stdout, stderr)
		if argv[0] == "scp" && !slices.Contains(argv, "-O") {
			io.WriteString(stderr, "scp: Connection closed\n")
			return 255
		}
		return 0
	}}}
	if err := s.Push(context.Background(), "/l/corepin", "/r/corepin-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pull(context.Background(), "/r/out/x", "/here"); err != nil {
		t.Fatal(err)
	}
	var scps []string
	for _, c := range rec.calls {
		if c[0] == "scp" {
			scps = append(scps, strings.Join(c, " "))
		}
	}
	if len(scps) != 3 || strings.Contains(scps[0], " -O ") || !strings.Contains(scps[1], " -O ") || !strings.Contains(scps[2], " -O ") {
		t.Errorf("scp calls:\n%s", strings.Join(scps, "\n"))
	}
}

func TestSSHIPv6ForSCP(t *testing.T) {
	s := &SSH{User: "pi", Host: "fe80::1"}
	if got := s.dest(true); got != "pi@[fe80::1]" {
		t.Errorf("scp destination %q", got)
	}
	if got := s.dest(false); got != "pi@fe80::1" {
		t.Errorf("ssh destination %q", got)
	}
}

func TestADBCommandLines(t *testing.T) {
	for _, serial := range []string{"", "emulator-5554"} {
		rec := &recorder{answer: echoStatus("aarch64", 0)}
		a := &ADB{Serial: serial, client: client{timeouts: defaultTimeouts, fake: rec.fake}}
		ctx := context.Background()
		var out bytes.Buffer
		code, err := a.Run(ctx, "uname -m", &out, nil)
		if err != nil || code != 0 || out.String() != "aarch64" {
			t.Errorf("Run = %d, %v, %q", code, err, out.String())
		}
		rec.answer = nil
		a.Push(ctx, "/local/corepin", "/data/local/tmp/corepin-1")
		a.Pull(ctx, "/data/local/tmp/corepin-runs/x/out/r", "/here")
		sel := "adb"
		if serial != "" {
			sel = "adb -s " + serial
		}
		checkCalls(t, rec.calls, []string{
			sel + " shell echo; (uname -m); s=$?; echo; echo __COREPIN_STATUS=$s",
			sel + " push /local/corepin /data/local/tmp/corepin-1",
			sel + " pull /data/local/tmp/corepin-runs/x/out/r /here",
		})
	}
}

func TestHDCCommandLines(t *testing.T) {
	rec := &recorder{answer: echoStatus("", 3)}
	h := &HDC{Key: "7001005458323933328a", client: client{timeouts: defaultTimeouts, fake: rec.fake}}
	ctx := context.Background()
	if code, err := h.Run(ctx, "false", nil, nil); err != nil || code != 3 {
		t.Errorf("Run = %d, %v; want status 3", code, err)
	}
	rec.answer = func([]string) (string, int) {
		return "FileTransfer finish, Size:10, File count = 1, time:3ms rate:3.33kB/s\n", 0
	}
	if err := h.Push(ctx, "/local/corepin", "/data/local/tmp/corepin-1"); err != nil {
		t.Error(err)
	}
	h.Pull(ctx, "/data/local/tmp/corepin-runs/x/out/r", "/here")
	checkCalls(t, rec.calls, []string{
		"hdc -t 7001005458323933328a shell echo; (false); s=$?; echo; echo __COREPIN_STATUS=$s",
		"hdc -t 7001005458323933328a file send /local/corepin /data/local/tmp/corepin-1",
		"hdc -t 7001005458323933328a file recv /data/local/tmp/corepin-runs/x/out/r /here",
	})
	// hdc exits 0 after a failed transfer and says so.
	rec.answer = func([]string) (string, int) {
		return "[Fail]Error opening file: no such file or directory, path:/nope\n", 0
	}
	if err := h.Push(ctx, "/nope", "/data/local/tmp/x"); err == nil || !strings.Contains(err.Error(), "[Fail]Error opening file") {
		t.Errorf("a failed hdc transfer: %v", err)
	}
}

func checkCalls(t *testing.T, calls [][]string, want []string) {
	t.Helper()
	var got []string
	for _, c := range calls {
		got = append(got, strings.Join(c, " "))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("command lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStatusMarker runs wrapped commands through a real shell and reads
// their output and status back as the adb and hdc targets do, also as old
// adb's terminal would have sent it (CRLF).
func TestStatusMarker(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	for _, c := range []struct {
		cmd  string
		out  string
		code int
	}{
		{"echo hello", "hello\n", 0},
		{"printf 'no newline'", "no newline", 0},
		{"true", "", 0},
		{"echo a; echo b; exit 7", "a\nb\n", 7},
		{"printf '\\n\\n'; false", "\n\n", 1},
		{"echo __COREPIN_STATUS=9; exit 2", "__COREPIN_STATUS=9\n", 2},
	} {
		raw, _ := exec.Command(sh, "-c", withStatus(c.cmd)).Output()
		for _, crlf := range []bool{false, true} {
			stream := raw
			if crlf {
				stream = bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n"))
			}
			var out bytes.Buffer
			f := &statusFilter{w: &out}
			for _, b := range stream { // byte by byte: the worst split
				f.Write([]byte{b})
			}
			code, ok := f.status()
			if !ok || code != c.code || out.String() != c.out {
				t.Errorf("%q (crlf %v): %q, status %d %v; want %q, %d", c.cmd, crlf, out.String(), code, ok, c.out, c.code)
			}
		}
	}
	// The first line end (corepin's own echo) says whether the link
	// converts: an old adb's terminal does, and a newer adb passes a
	// command's own CRLF on unchanged.
	var plain bytes.Buffer
	pf := &statusFilter{w: &plain}
	pf.Write([]byte("s=0 a=4\r\nx\r\n\n" + statusMarker + "0\n"))
	if code, ok := pf.status(); !ok || code != 0 || plain.String() != "s=0 a=4\nx\n" {
		t.Errorf("terminal link: %q, %d %v", plain.String(), code, ok)
	}
	plain.Reset()
	pf = &statusFilter{w: &plain}
	pf.Write([]byte("s=0 a=4\nx\r\n\n" + statusMarker + "0\n"))
	if code, ok := pf.status(); !ok || code != 0 || plain.String() != "s=0 a=4\nx\r\n" {
		t.Errorf("plain link: %q, %d %v", plain.String(), code, ok)
	}
	// A stream cut before the marker: no status, and the output is kept.
	var out bytes.Buffer
	f := &statusFilter{w: &out}
	f.Write([]byte("partial\nline"))
	if _, ok := f.status(); ok || out.String() != "partial\nline" {
		t.Errorf("cut stream: ok %v, %q", ok, out.String())
	}
}

// TestStatusFilterEveryChunking feeds the filter the same bytes cut in
// every way: what it passes on and the status it finds must not depend on
// where the link cut the stream. The streams are old adb's (a terminal's
// "\r\n" for every "\n"), with a command's own "\r\n" and a lone "\r"
// (a progress line) among them, and a newer adb's plain ones.
func TestStatusFilterEveryChunking(t *testing.T) {
	feed := func(stream []byte, cuts []int) (string, int, bool) {
		var out bytes.Buffer
		f := &statusFilter{w: &out}
		last := 0
		for _, c := range append(cuts, len(stream)) {
			f.Write(stream[last:c])
			last = c
		}
		code, ok := f.status()
		return out.String(), code, ok
	}
	terminal := func(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }
	// Short streams without a marker: every one of the 2^(n-1) chunkings.
	for _, c := range []struct {
		stream []byte
		want   string
	}{
		{terminal("s=0\nx\r\ny\rz\n"), "s=0\nx\r\ny\rz\n"},
		{terminal("a\n\r\n\r"), "a\n\r\n\r"},
		{[]byte("s=0\nx\r\ny\rz\n"), "s=0\nx\r\ny\rz\n"},
	} {
		n := len(c.stream)
		for mask := 0; mask < 1<<(n-1); mask++ {
			var cuts []int
			for i := 1; i < n; i++ {
				if mask&(1<<(i-1)) != 0 {
					cuts = append(cuts, i)
				}
			}
			if got, _, ok := feed(c.stream, cuts); ok || got != c.want {
				t.Fatalf("%q cut at %v: %q (status %v); want %q", c.stream, cuts, got, ok, c.want)
			}
		}
	}
	// Whole answers with the marker: every chunking into up to four
	// pieces, and byte by byte.
	for _, c := range []struct {
		stream []byte
		want   string
		code   int
	}{
		{terminal("s=1 a=9\nline\r\n\rbar\r\n\n" + statusMarker + "3\n"), "s=1 a=9\nline\r\n\rbar\r\n", 3},
		{terminal("s=0\nno newline\r\n" + statusMarker + "0\n"), "s=0\nno newline\r", 0},
		{[]byte("s=0\nx\r\n\n" + statusMarker + "7\n"), "s=0\nx\r\n", 7},
	} {
		n := len(c.stream)
		check := func(cuts []int) {
			t.Helper()
			if got, code, ok := feed(c.stream, cuts); !ok || code != c.code || got != c.want {
				t.Fatalf("%q cut at %v: %q, status %d %v; want %q, %d", c.stream, cuts, got, code, ok, c.want, c.code)
			}
		}
		check(nil)
		for i := 1; i < n; i++ {
			for j := i; j < n; j++ {
				for k := j; k < n; k++ {
					check([]int{i, j, k})
				}
			}
		}
		var every []int
		for i := 1; i < n; i++ {
			every = append(every, i)
		}
		check(every)
	}
}

func TestShellRunWithoutMarker(t *testing.T) {
	rec := &recorder{answer: func([]string) (string, int) { return "", 1 }}
	a := &ADB{client: client{timeouts: defaultTimeouts, fake: func(argv []string, stdout, stderr io.Writer) int {
		rec.fake(argv, stdout, stderr)
		io.WriteString(stderr, "adb: no devices/emulators found\n")
		return 1
	}}}
	_, err := a.Run(context.Background(), "true", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "adb: no devices/emulators found") || !errors.Is(err, ErrLost) {
		t.Errorf("adb without a device: %v", err)
	}
}

// TestClientFailures: when no status comes back, the error is the
// client's own account, as it gives it (hdc on standard output with exit
// 0, adb on standard error with exit 1), never a made-up one.
func TestClientFailures(t *testing.T) {
	for _, c := range []struct {
		client         string
		stdout, stderr string
		code           int
		want           string
		lost           bool
	}{
		{"hdc", "[Fail][E001005] Device not found or connected\n", "", 0, "hdc:K: [Fail][E001005] Device not found or connected", true},
		{"adb", "", "adb: more than one device/emulator\n", 1, "adb: adb: more than one device/emulator; name one with --on adb:SERIAL (adb devices lists them)", false},
		{"adb", "", "adb: device 'R58' not found\n", 1, "adb:R58: adb: device 'R58' not found", true},
		{"adb", "", "error: device offline\n", 1, "adb:R58: error: device offline", true},
		{"adb", "partial out", "", 0, "adb:R58: the output ended before the command's exit status (adb exited 0): the device stopped answering", true},
	} {
		fake := func(argv []string, stdout, stderr io.Writer) int {
			io.WriteString(stdout, c.stdout)
			io.WriteString(stderr, c.stderr)
			return c.code
		}
		var tg Target = &ADB{Serial: "R58", client: client{timeouts: defaultTimeouts, fake: fake}}
		if c.client == "hdc" {
			tg = &HDC{Key: "K", client: client{timeouts: defaultTimeouts, fake: fake}}
		} else if strings.Contains(c.stderr, "more than one") {
			tg = &ADB{client: client{timeouts: defaultTimeouts, fake: fake}}
		}
		_, err := tg.Run(context.Background(), "true", nil, nil)
		if err == nil || err.Error() != c.want || errors.Is(err, ErrLost) != c.lost {
			t.Errorf("%s said %q%q: %v (lost %v); want %q (lost %v)", c.client, c.stdout, c.stderr, err, errors.Is(err, ErrLost), c.want, c.lost)
		}
	}
	// A command that fails through hdc says why on standard output: the
	// client merges the two streams.
	rec := &recorder{answer: echoStatus("mkdir: '/data/local/tmp': Read-only file system", 1)}
	d := &Device{Target: &HDC{Key: "K", client: client{timeouts: defaultTimeouts, fake: rec.fake}}, Folder: "/data/local/tmp", installed: map[string]bool{}}
	exe, _ := os.Executable()
	if _, err := d.Install(context.Background(), exe, io.Discard); err == nil || !strings.Contains(err.Error(), "Read-only file system") {
		t.Errorf("install on a read-only folder: %v", err)
	}
	// A failed transfer: hdc exits 0 and says [Fail].
	rec = &recorder{answer: func([]string) (string, int) {
		return "[Fail]Error opening file: read-only file system, path:/data/local/tmp/x\n", 0
	}}
	h := &HDC{Key: "K", client: client{timeouts: defaultTimeouts, fake: rec.fake}}
	if err := h.Push(context.Background(), "/l", "/data/local/tmp/x"); err == nil ||
		err.Error() != "pushing /l to hdc:K: [Fail]Error opening file: read-only file system, path:/data/local/tmp/x" {
		t.Errorf("a failed hdc push: %v", err)
	}
}

func FuzzStatusFilter(f *testing.F) {
	f.Add([]byte("hello\n\n__COREPIN_STATUS=0\n"), 3)
	f.Add([]byte("x\r\n\r\n__COREPIN_STATUS=12\r\n"), 1)
	f.Fuzz(func(t *testing.T, stream []byte, split int) {
		var out bytes.Buffer
		s := &statusFilter{w: &out}
		if split > 0 && split < len(stream) {
			s.Write(stream[:split])
			s.Write(stream[split:])
		} else {
			s.Write(stream)
		}
		// Without a marker all comes through, but for a first empty line
		// (withStatus's own).
		want := len(stream)
		if len(stream) > 0 && stream[0] == '\n' {
			want--
		}
		if _, ok := s.status(); !ok && !bytes.Contains(stream, []byte("\r")) && out.Len() != want {
			t.Errorf("no marker, and %d of %d bytes came through", out.Len(), len(stream))
		}
	})
}

func TestGoArch(t *testing.T) {
	for m, want := range map[string]string{
		"x86_64": "amd64", "aarch64": "arm64", "armv8l": "arm64", "armv7l": "arm/7", "armv6l": "arm/6",
		"riscv64": "riscv64", "i686": "386", "loongarch64": "loong64",
	} {
		arch, goarm, err := GoArch(m)
		got := arch
		if goarm != "" {
			got += "/" + goarm
		}
		if err != nil || got != want {
			t.Errorf("GoArch(%q) = %s, %v; want %s", m, got, err, want)
		}
	}
	if _, _, err := GoArch("sparc64"); err == nil {
		t.Error("sparc64: no error")
	}
}

func TestProbe(t *testing.T) {
	for _, c := range []struct {
		kind, out       string
		platform, where string
	}{
		{"adb", "machine=aarch64\nkernel=Linux\nsdk=34\nohos=\ncache=\ntmp=/data/local/tmp\n", "android/arm64 Android SDK 34", "/data/local/tmp"},
		{"hdc", "machine=aarch64\nkernel=Linux\nsdk=\nohos=12\ncache=\ntmp=/tmp\n", "linux/arm64 HarmonyOS API 12", "/data/local/tmp"},
		{"ssh", "machine=x86_64\nkernel=Linux\nsdk=\nohos=\ncache=/root/.cache\ntmp=/tmp\n", "linux/amd64 Linux", "/root/.cache/corepin"},
		{"ssh", "machine=armv7l\nkernel=Linux\nsdk=\nohos=\ncache=\ntmp=/var/tmp\n", "linux/arm (GOARM=7) Linux", "/var/tmp/corepin"},
	} {
		p := parseProbe(c.out)
		pl, err := p.platform(c.kind)
		if err != nil {
			t.Errorf("%s: %v", c.kind, err)
			continue
		}
		if got := pl.String() + " " + pl.System; got != c.platform {
			t.Errorf("%s: platform %q, want %q", c.kind, got, c.platform)
		}
		if got := p.folder(pl, c.kind); got != c.where {
			t.Errorf("%s: folder %q, want %q", c.kind, got, c.where)
		}
	}
	if p := parseProbe("machine=x86_64\nbin=/c/corepin/corepin-1\nbin=/c/corepin/corepin-2\n"); p["bins"] != "/c/corepin/corepin-1\n/c/corepin/corepin-2\n" {
		t.Errorf("installed binaries: %q", p["bins"])
	}
	if _, err := parseProbe("machine=arm64\nkernel=Darwin\n").platform("ssh"); err == nil {
		t.Error("a Mac: no error")
	}
}

func TestParseJobs(t *testing.T) {
	jobs := parseJobs("job 20261201-0900-b 130 no 812 yes\narg /c/corepin-1\narg run\narg --quick\njob 20261201-0800-a - yes 77 no\narg /c/corepin-1\narg topo\n")
	if len(jobs) != 2 || jobs[0].ID != "20261201-0800-a" || !jobs[0].Running || jobs[0].Status != nil ||
		*jobs[1].Status != 130 || strings.Join(jobs[1].Command, " ") != "/c/corepin-1 run --quick" {
		t.Fatalf("%+v", jobs)
	}
	if jobs[0].State() != "running, pid 77" || jobs[1].State() != "ended, exit 130, pulled" {
		t.Errorf("states %q, %q", jobs[0].State(), jobs[1].State())
	}
}

func TestQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	words := []string{"plain", "two words", "it's", `$(touch x)`, "", "--out=/a b", "*"}
	got, err := exec.Command(sh, "-c", "cd "+t.TempDir()+" && printf '%s\\n' "+QuoteAll(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.Join(words, "\n")+"\n" {
		t.Errorf("quoted words came back as %q", got)
	}
}

func TestFitsRefusesDynamic(t *testing.T) {
	// The test binary itself: of this architecture; whether it is static
	// depends on the build, and fits must say which.
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	p := Platform{OS: "linux", Arch: "sparc64"}
	if err := fits(exe, p); err == nil {
		t.Error("a binary for another architecture fits")
	}
	if err := fits(filepath.Join(t.TempDir(), "none"), p); err == nil {
		t.Error("a missing file fits")
	}
}

// goBuild builds a small Go program for goos/goarch without cgo.
func goBuild(t *testing.T, goos, goarch string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the Go toolchain")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	out := filepath.Join(dir, "prog-"+goos+"-"+goarch)
	cmd := exec.Command("go", "build", "-o", out, "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GO111MODULE=off", "GOFLAGS=")
	if said, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for %s/%s: %v\n%s", goos, goarch, err, said)
	}
	return out
}

// TestFits checks binaries against devices by their ELF headers: what is
// not an ELF, or is one of another architecture, or needs a loader the
// device may not have, is refused with what it is; Go's android/arm64
// build, a position-independent executable that Android's own loader
// starts, fits an Android device and is not called static.
func TestFits(t *testing.T) {
	android := Platform{OS: "android", Arch: "arm64", System: "Android SDK 34"}
	harmony := Platform{OS: "linux", Arch: "arm64", System: "HarmonyOS API 12"}
	amd64 := Platform{OS: "linux", Arch: "amd64", System: "Linux"}
	forAndroid := goBuild(t, "android", "arm64")
	forLinuxARM := goBuild(t, "linux", "arm64")
	forLinuxAMD := goBuild(t, "linux", "amd64")
	for _, c := range []struct {
		path string
		p    Platform
		want string // "" when it fits
	}{
		{forAndroid, android, ""},
		{forLinuxARM, android, ""},
		{forLinuxARM, harmony, ""},
		{forLinuxAMD, amd64, ""},
		{forAndroid, harmony, "is dynamically linked (its loader is /system/bin/linker64; build it with CGO_ENABLED=0)"},
		{forLinuxAMD, android, "is an ELF file for amd64, and the device is arm64"},
		{forLinuxARM, amd64, "is an ELF file for arm64, and the device is amd64"},
		{"/etc/passwd", android, "is not an ELF executable"},
		{filepath.Join(t.TempDir(), "none"), android, "does not exist"},
	} {
		err := fits(c.path, c.p)
		if got := fmt.Sprint(err); err == nil && c.want != "" || err != nil && got != c.want {
			t.Errorf("%s on %s: %v; want %q", filepath.Base(c.path), c.p, err, c.want)
		}
	}
	if got := Linkage(forAndroid); got != "position-independent, loaded by /system/bin/linker64" {
		t.Errorf("the android/arm64 build is %q", got)
	}
	if got := Linkage(forLinuxAMD); got != "static" {
		t.Errorf("the linux/amd64 build is %q", got)
	}
	// /bin/sh of this machine: an ELF that needs the C library's loader.
	if sh, err := filepath.EvalSymlinks("/bin/sh"); err == nil && runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		if err := fits(sh, amd64); err == nil || !strings.Contains(err.Error(), "is dynamically linked") && !strings.Contains(err.Error(), "no Go build information") {
			t.Errorf("/bin/sh fits: %v", err)
		}
	}
	// --binary is checked before anything is pushed.
	b := &Binaries{Given: "/etc/passwd"}
	if _, err := b.For(context.Background(), android); err == nil ||
		err.Error() != "--binary /etc/passwd cannot run on the device (android/arm64, Android SDK 34): it is not an ELF executable" {
		t.Errorf("--binary /etc/passwd: %v", err)
	}
	b = &Binaries{Given: forLinuxAMD}
	if _, err := b.For(context.Background(), android); err == nil || !strings.Contains(err.Error(), "it is an ELF file for amd64, and the device is arm64") {
		t.Errorf("--binary of another architecture: %v", err)
	}
	if got, err := (&Binaries{Given: forAndroid}).For(context.Background(), android); err != nil || got != forAndroid {
		t.Errorf("--binary for the device: %q, %v", got, err)
	}
}

func TestRename(t *testing.T) {
	var out bytes.Buffer
	r := rename(&out, []string{"/d/runs/1/out/p1", "exp/p1", "/d/runs/1/out/t.csv", "t.csv"}, "", true)
	for _, chunk := range []string{"wrote /d/runs/1/out/p1/a.json\nand /d/runs/1/", "out/t.csv\nlast /d/runs/1/out/p1"} {
		r.Write([]byte(chunk))
	}
	r.release(nil)
	if want := "wrote exp/p1/a.json\nand t.csv\nlast exp/p1"; out.String() != want {
		t.Errorf("%q, want %q", out.String(), want)
	}
}

// TestRenameHolds: the lines from the first that names a results folder
// wait for its pull, and then name it as it arrived (here as r1-2, and
// r1x is not r1); a folder that did not arrive is left out of standard
// output and named as the device has it on standard error.
func TestRenameHolds(t *testing.T) {
	const dev = "/d/runs/1/out"
	var out, errOut bytes.Buffer
	stdout, stderr := rename(&out, nil, dev, true), rename(&errOut, nil, dev, false)
	stdout.Write([]byte("summary\n" + dev + "/r1\n" + dev + "/r1x\nafter\nno newline"))
	stderr.Write([]byte("[1/1] fib\ninterrupted; finished runs are in " + dev + "/r1\n"))
	if out.String() != "summary\n" || errOut.String() != "[1/1] fib\n" {
		t.Fatalf("before the pull: %q, %q", out.String(), errOut.String())
	}
	arrived := []string{dev + "/r1", "res/r1-2", dev + "/r1x", "res/r1x"}
	stdout.release(arrived)
	stderr.release(arrived)
	if want := "summary\nres/r1-2\nres/r1x\nafter\nno newline"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if want := "[1/1] fib\ninterrupted; finished runs are in res/r1-2\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	out.Reset()
	errOut.Reset()
	stdout, stderr = rename(&out, nil, dev, true), rename(&errOut, nil, dev, false)
	stdout.Write([]byte("summary\n" + dev + "/r1\n"))
	stderr.Write([]byte("results so far: " + dev + "/r1\n"))
	stdout.release(nil) // the pull failed
	stderr.release(nil)
	if out.String() != "summary\n" || errOut.String() != "results so far: "+dev+"/r1\n" {
		t.Errorf("after a failed pull: %q, %q", out.String(), errOut.String())
	}
}

func TestProbeIdentity(t *testing.T) {
	adb, _ := Open("adb:192.168.1.20:5555", Options{})
	hdc, _ := Open("hdc:7001", Options{})
	ssh, _ := Open("ssh://root@board", Options{})
	for _, c := range []struct {
		target Target
		out    string
		want   Identity
	}{
		{adb, "machine=aarch64\nkernel=Linux\nsdk=34\nrelease=14\nmodel=Pixel 7\nmaker=Google\nserialno=R58M1\n",
			Identity{On: "adb:192.168.1.20:5555", Serial: "R58M1", Model: "Google Pixel 7", OS: "Android 14", key: "adb/R58M1"}},
		{adb, "machine=aarch64\nkernel=Linux\nsdk=29\nrelease=10\nmodel=SM-G973F\nmaker=samsung\nserialno=\n",
			Identity{On: "adb:192.168.1.20:5555", Serial: "192.168.1.20:5555", Model: "samsung SM-G973F", OS: "Android 10", key: "adb/192.168.1.20:5555"}},
		{hdc, "machine=aarch64\nkernel=Linux\nohos=12\nohos_name=OpenHarmony-5.0.0.71\nohos_model=SGU-AL10\nohos_sn=Get parameter \"ohos.boot.sn\" fail! errNum is:106!\n",
			Identity{On: "hdc:7001", Serial: "7001", Model: "SGU-AL10", OS: "OpenHarmony-5.0.0.71", key: "hdc/7001"}},
		{ssh, "machine=x86_64\nkernel=Linux\nos_release=\"Debian GNU/Linux 12 (bookworm)\"\ndmi_vendor=QEMU\ndmi_product=Standard PC (Q35 + ICH9, 2009)\nmachine_id=0123abcd\n",
			Identity{On: "ssh://root@board", Model: "QEMU Standard PC (Q35 + ICH9, 2009)", OS: "Debian GNU/Linux 12 (bookworm)", key: "ssh/0123abcd"}},
		{ssh, "machine=aarch64\nkernel=Linux\nos_release=\"Raspbian GNU/Linux 11 (bullseye)\"\ndt_model=Raspberry Pi 4 Model B Rev 1.4\x00\n",
			Identity{On: "ssh://root@board", Model: "Raspberry Pi 4 Model B Rev 1.4", OS: "Raspbian GNU/Linux 11 (bullseye)"}},
	} {
		p := parseProbe(c.out)
		pl, err := p.platform(c.target.Kind())
		if err != nil {
			t.Fatal(err)
		}
		if got := p.identity(c.target, pl); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.target, got, c.want)
		}
	}
	// The probe itself, run by this machine's shell: the system's name
	// from /etc/os-release, no stray lines.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	out, err := exec.Command(sh, "-c", probeCommand).Output()
	if err != nil {
		t.Fatal(err)
	}
	p := parseProbe(string(out))
	pl, err := p.platform("ssh")
	if err != nil {
		t.Fatal(err)
	}
	id := p.identity(ssh, pl)
	if osr, err := os.ReadFile("/etc/os-release"); err == nil && !strings.Contains(string(osr), "PRETTY_NAME=\""+id.OS+"\"") && !strings.Contains(string(osr), "PRETTY_NAME="+id.OS+"\n") {
		t.Errorf("this machine's system: %q\n%s", id.OS, osr)
	}
	if vendor, err := os.ReadFile("/sys/class/dmi/id/sys_vendor"); err == nil && !strings.HasPrefix(id.Model, strings.TrimSpace(string(vendor))) {
		t.Errorf("this machine's model %q; DMI says %q", id.Model, vendor)
	}
}
