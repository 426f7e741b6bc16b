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
	return func([]string) (string, int) { return out + "\n" + statusMarker + fmt.Sprint(code) + "\n", 0 }
}

func TestSSHCommandLines(t *testing.T) {
	rec := &recorder{}
	s := &SSH{Spec: "ssh://root@h:2222", User: "root", Host: "h", Port: 2222, Config: "/c", ControlDir: "/cm",
		client: client{timeouts: DefaultTimeouts, fake: rec.fake}}
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
	s := &SSH{Spec: "ssh://b", Host: "b", ControlDir: "/cm", client: client{timeouts: DefaultTimeouts, fake: func(argv []string, stdout, stderr io.Writer) int {
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
		a := &ADB{Serial: serial, client: client{timeouts: DefaultTimeouts, fake: rec.fake}}
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
			sel + " shell (uname -m); s=$?; echo; echo __COREPIN_STATUS=$s",
			sel + " push /local/corepin /data/local/tmp/corepin-1",
			sel + " pull /data/local/tmp/corepin-runs/x/out/r /here",
		})
	}
}

func TestHDCCommandLines(t *testing.T) {
	rec := &recorder{answer: echoStatus("", 3)}
	h := &HDC{Key: "7001005458323933328a", client: client{timeouts: DefaultTimeouts, fake: rec.fake}}
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
		"hdc -t 7001005458323933328a shell (false); s=$?; echo; echo __COREPIN_STATUS=$s",
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

func TestShellRunWithoutMarker(t *testing.T) {
	rec := &recorder{answer: func([]string) (string, int) { return "", 1 }}
	a := &ADB{client: client{timeouts: DefaultTimeouts, fake: func(argv []string, stdout, stderr io.Writer) int {
		rec.fake(argv, stdout, stderr)
		io.WriteString(stderr, "adb: no devices/emulators found\n")
		return 1
	}}}
	_, err := a.Run(context.Background(), "true", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "adb: no devices/emulators found") || !errors.Is(err, ErrLost) {
		t.Errorf("adb without a device: %v", err)
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
		if _, ok := s.status(); !ok && !bytes.Contains(stream, []byte("\r")) && out.Len() != len(stream) {
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
	jobs := parseJobs("job 20261201-0900-b 130 no 812\narg /c/corepin-1\narg run\narg --quick\njob 20261201-0800-a - yes 77\narg /c/corepin-1\narg topo\n")
	if len(jobs) != 2 || jobs[0].ID != "20261201-0800-a" || !jobs[0].Running || jobs[0].Status != nil ||
		*jobs[1].Status != 130 || strings.Join(jobs[1].Command, " ") != "/c/corepin-1 run --quick" {
		t.Fatalf("%+v", jobs)
	}
	if jobs[0].State() != "running, pid 77" || jobs[1].State() != "ended, exit 130" {
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

func TestRename(t *testing.T) {
	var out bytes.Buffer
	r := rename(&out, []string{"/d/runs/1/out/p1", "exp/p1", "/d/runs/1/out", "corepin-results"})
	for _, chunk := range []string{"wrote /d/runs/1/out/p1/a.json\nresults in /d/runs/1/", "out/2026-vm\nlast /d/runs/1/out"} {
		r.Write([]byte(chunk))
	}
	r.Close()
	if want := "wrote exp/p1/a.json\nresults in corepin-results/2026-vm\nlast corepin-results"; out.String() != want {
		t.Errorf("%q, want %q", out.String(), want)
	}
}
