package remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/internal/fakedevice"
)

func TestMain(m *testing.M) {
	fakedevice.Dispatch() // the test binary as a fake adb or hdc
	os.Exit(m.Run())
}

// fakeLab is a lab with an Android phone over the shell protocol (R58M1),
// one over old adb (OLD01), and a HarmonyOS device (7001); its clients
// come first on the PATH.
func fakeLab(t *testing.T) *fakedevice.Lab {
	lab := fakedevice.New(t, t.TempDir(), os.Args[0])
	lab.Add(t, fakedevice.Device{Client: "adb", Serial: "R58M1", Props: map[string]string{
		"ro.build.version.sdk": "34", "ro.build.version.release": "14", "ro.product.model": "Pixel 7",
		"ro.product.manufacturer": "Google", "ro.serialno": "R58M1"}})
	lab.Add(t, fakedevice.Device{Client: "adb", Serial: "OLD01", Old: true, Props: map[string]string{
		"ro.build.version.sdk": "23", "ro.build.version.release": "6.0", "ro.product.model": "Nexus 5", "ro.product.manufacturer": "LGE"}})
	lab.Add(t, fakedevice.Device{Client: "hdc", Serial: "7001", Props: map[string]string{
		"const.ohos.apiversion": "12", "const.ohos.fullname": "OpenHarmony-5.0.0.71", "const.product.model": "SGU-AL10"}})
	t.Setenv("PATH", lab.Env(nil)[0][len("PATH="):])
	t.Setenv("ANDROID_SERIAL", "")
	return lab
}

// TestFakeClients runs commands through the clients as they behave: the
// exit status, quotes and $, both streams (merged by old adb and hdc), a
// command's own "\r\n" (and old adb's terminal), and what each device says
// it is.
func TestFakeClients(t *testing.T) {
	fakeLab(t)
	ctx := context.Background()
	for _, c := range []struct {
		spec     string
		merged   bool
		platform string
		id       Identity
	}{
		{"adb:R58M1", false, "android Android SDK 34", Identity{On: "adb:R58M1", Serial: "R58M1", Model: "Google Pixel 7", OS: "Android 14"}},
		{"adb:OLD01", true, "android Android SDK 23", Identity{On: "adb:OLD01", Serial: "OLD01", Model: "LGE Nexus 5", OS: "Android 6.0"}},
		{"hdc:7001", true, "linux HarmonyOS API 12", Identity{On: "hdc:7001", Serial: "7001", Model: "SGU-AL10", OS: "OpenHarmony-5.0.0.71"}},
	} {
		tg, err := Open(c.spec, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code, err := tg.Run(ctx, `printf '%s|' "a b" '$HOME' "it's" "$(uname -n)"; printf 'x\r\ny\n'; echo err >&2; exit 7`, &out, &errOut)
		wantOut, wantErr := "a b|$HOME|it's|localhost|x\r\ny\n", "err\n"
		if c.merged {
			wantOut, wantErr = wantOut+"err\n", ""
		}
		if err != nil || code != 7 || out.String() != wantOut || errOut.String() != wantErr {
			t.Errorf("%s: exit %d, %v, stdout %q, stderr %q; want 7, %q, %q", c.spec, code, err, out.String(), errOut.String(), wantOut, wantErr)
		}
		d, err := Connect(ctx, tg)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		c.id.key = d.Identity.key
		// The devices are this machine: of its architecture.
		if got := d.Platform.OS + " " + d.Platform.System; got != c.platform || d.Platform.Arch != hostArch(t) || d.Identity != c.id || d.Folder != "/data/local/tmp" {
			t.Errorf("%s: %s, %+v, folder %s; want %s, %+v", c.spec, got, d.Identity, d.Folder, c.platform, c.id)
		}
	}
}

// hostArch is the GOARCH of this machine's uname -m.
func hostArch(t *testing.T) string {
	t.Helper()
	m, err := exec.Command("uname", "-m").Output()
	if err != nil {
		t.Skip("needs uname")
	}
	arch, _, err := GoArch(string(m))
	if err != nil {
		t.Skip(err)
	}
	return arch
}

// TestFakeClientFailures: the clients' own failures come back in their
// words: several devices, one not there, one unplugged, a read-only
// folder (whose error hdc prints on standard output).
func TestFakeClientFailures(t *testing.T) {
	lab := fakeLab(t)
	ctx := context.Background()
	run := func(spec string) error {
		tg, _ := Open(spec, Options{})
		_, err := tg.Run(ctx, "true", nil, nil)
		return err
	}
	if err := run("adb"); err == nil || err.Error() != "adb: adb: more than one device/emulator; name one with --on adb:SERIAL (adb devices lists them)" || errors.Is(err, ErrLost) {
		t.Errorf("adb with two devices: %v", err)
	}
	if err := run("adb:R58M9"); err == nil || err.Error() != "adb:R58M9: adb: device 'R58M9' not found" || !errors.Is(err, ErrLost) {
		t.Errorf("adb with a serial it does not see: %v", err)
	}
	lab.Unplug(t, "hdc", "7001", true)
	if err := run("hdc:7001"); err == nil || err.Error() != "hdc:7001: [Fail][E001005] Device not found or connected" || !errors.Is(err, ErrLost) {
		t.Errorf("an unplugged hdc device: %v", err)
	}
	lab.Unplug(t, "hdc", "7001", false)
	lab.ReadOnly(t, "hdc", "7001", true)
	tg, _ := Open("hdc:7001", Options{})
	d, err := Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	j := d.NewJob(time.Now())
	if err := j.Start(ctx, "/bin/true", nil); err == nil || !strings.Contains(err.Error(), "Read-only file system") {
		t.Errorf("starting a job on a read-only folder through hdc: %v", err)
	}
	exe, _ := os.Executable()
	if _, err := d.Install(ctx, exe, nil); err == nil || !strings.Contains(err.Error(), "[Fail]Error opening file: read-only file system") {
		t.Errorf("installing on a read-only folder through hdc: %v", err)
	}
	lab.ReadOnly(t, "adb", "R58M1", true)
	tg, _ = Open("adb:R58M1", Options{})
	if d, err = Connect(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Install(ctx, exe, nil); err == nil || !strings.Contains(err.Error(), "remote couldn't create file: Read-only file system") {
		t.Errorf("installing on a read-only folder through adb: %v", err)
	}
}
