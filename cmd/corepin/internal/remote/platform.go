package remote

import (
	"bufio"
	"context"
	"fmt"
	"path"
	"strings"
	"unicode"
)

// Platform is what a device runs, in Go's words.
type Platform struct {
	OS      string `json:"goos"`   // linux or android (HarmonyOS runs linux binaries)
	Arch    string `json:"goarch"` // amd64, arm64, arm, riscv64, …
	ARM     string `json:"goarm,omitempty"`
	Machine string `json:"machine"` // uname -m
	System  string `json:"system"`  // e.g. "Android SDK 34", "HarmonyOS API 12", "Linux"
}

func (p Platform) String() string {
	s := p.OS + "/" + p.Arch
	if p.ARM != "" {
		s += " (GOARM=" + p.ARM + ")"
	}
	return s
}

// BuildOS is the GOOS to build for: android on Android's arm64, where Go
// builds without cgo a position-independent executable that Android's
// own loader (/system/bin/linker64) starts; elsewhere linux, a static
// binary that runs on Android and HarmonyOS alike (corepin has no
// Android-only code).
func (p Platform) BuildOS() string {
	if p.OS == "android" && p.Arch == "arm64" {
		return "android"
	}
	return "linux"
}

// GoArch maps "uname -m" to GOARCH and, for 32-bit ARM, GOARM.
func GoArch(machine string) (arch, goarm string, err error) {
	m := strings.ToLower(strings.TrimSpace(machine))
	switch {
	case m == "x86_64" || m == "amd64":
		return "amd64", "", nil
	case m == "i386" || m == "i486" || m == "i586" || m == "i686":
		return "386", "", nil
	case m == "aarch64" || m == "arm64" || strings.HasPrefix(m, "armv8"):
		return "arm64", "", nil
	case strings.HasPrefix(m, "armv7"):
		return "arm", "7", nil
	case strings.HasPrefix(m, "armv6"):
		return "arm", "6", nil
	case strings.HasPrefix(m, "armv5") || m == "arm":
		return "arm", "5", nil
	case m == "riscv64":
		return "riscv64", "", nil
	case m == "ppc64le" || m == "s390x" || m == "loong64" || m == "mips64":
		return m, "", nil
	case m == "loongarch64":
		return "loong64", "", nil
	}
	return "", "", fmt.Errorf("machine %q: no Go architecture known for it", machine)
}

// probeCommand asks the device, in one call, what it is (its platform,
// and the identity a result records: see Identity) and where corepin may
// keep its files. v prints KEY=VALUE with the first line a command
// prints, nothing where the device lacks the command or the file.
const probeCommand = `v() { k=$1; shift; printf '%s=' "$k"; "$@" 2> /dev/null | head -n 1; echo; }; ` +
	`v machine uname -m; v kernel uname -s; ` +
	`v sdk getprop ro.build.version.sdk; v release getprop ro.build.version.release; ` +
	`v model getprop ro.product.model; v maker getprop ro.product.manufacturer; v serialno getprop ro.serialno; ` +
	`v ohos param get const.ohos.apiversion; v ohos_name param get const.ohos.fullname; ` +
	`v ohos_model param get const.product.model; v ohos_sn param get ohos.boot.sn; ` +
	`v os_release sed -n 's/^PRETTY_NAME=//p' /etc/os-release; v dt_model cat /proc/device-tree/model; ` +
	`v dmi_vendor cat /sys/class/dmi/id/sys_vendor; v dmi_product cat /sys/class/dmi/id/product_name; ` +
	`v machine_id cat /etc/machine-id; ` +
	`c="${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}"; echo "cache=$c"; echo "tmp=${TMPDIR:-/tmp}"; ` +
	`for b in /data/local/tmp/corepin-* "$c/corepin"/corepin-* "${TMPDIR:-/tmp}/corepin"/corepin-*; do [ -x "$b" ] && echo "bin=$b"; done; true`

// probe is the parsed answer to probeCommand; "bin" lines are gathered
// under bins.
type probe map[string]string

func parseProbe(out string) probe {
	p := probe{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok {
			v = strings.TrimSpace(strings.Map(dropControl, v))
			if k == "bin" {
				p["bins"] += v + "\n"
				continue
			}
			p[k] = v
		}
	}
	return p
}

// platform reads the probe: the architecture from uname -m, the OS from
// getprop on Android and param on HarmonyOS.
func (p probe) platform(kind string) (Platform, error) {
	if k := p["kernel"]; k != "Linux" {
		return Platform{}, fmt.Errorf("the device runs %q, not Linux: corepin runs on Linux-family kernels", k)
	}
	arch, goarm, err := GoArch(p["machine"])
	if err != nil {
		return Platform{}, err
	}
	pl := Platform{OS: "linux", Arch: arch, ARM: goarm, Machine: p["machine"], System: "Linux"}
	switch sdk, api := p["sdk"], p.param("ohos"); {
	case api != "" && kind != "adb":
		pl.System = "HarmonyOS API " + api
	case sdk != "":
		pl.OS, pl.System = "android", "Android SDK "+sdk
	case kind == "hdc":
		pl.System = "HarmonyOS"
	case kind == "adb":
		pl.OS, pl.System = "android", "Android"
	}
	return pl, nil
}

// folder is where corepin keeps its binaries and runs on the device:
// /data/local/tmp on Android and HarmonyOS (the one place a shell user
// may write and execute), the user's cache folder elsewhere, or the
// temporary folder when there is no home.
func (p probe) folder(pl Platform, kind string) string {
	switch {
	case kind != "ssh" || pl.OS == "android" || strings.HasPrefix(pl.System, "HarmonyOS"):
		return "/data/local/tmp"
	case p["cache"] != "":
		return path.Join(p["cache"], "corepin")
	}
	return path.Join(p["tmp"], "corepin")
}

// dropControl leaves out control characters (a device tree's NUL, a
// terminal's escapes) from what the device said.
func dropControl(r rune) rune {
	if unicode.IsControl(r) {
		return -1
	}
	return r
}

// param is a HarmonyOS parameter the probe read with param get, "" where
// there is none ("Get parameter … fail! errNum is:106!").
func (p probe) param(k string) string {
	if v := p[k]; !strings.Contains(strings.ToLower(v), "fail") {
		return v
	}
	return ""
}

// Device is a target that has been asked what it is.
type Device struct {
	Target   Target
	Platform Platform
	Identity Identity
	// Folder holds corepin-<hash> binaries and the runs/ folder.
	Folder string
	// installed are the corepin binaries the device had when asked.
	installed map[string]bool
	// follow is how its jobs are followed; zero: defaultFollow.
	follow followTiming
}

// Connect reaches the target and asks what it is.
func Connect(ctx context.Context, t Target) (*Device, error) {
	var out strings.Builder
	if err := runChecked(ctx, t, "asking what it is", probeCommand, &out); err != nil {
		return nil, err
	}
	p := parseProbe(out.String())
	pl, err := p.platform(t.Kind())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	d := &Device{Target: t, Platform: pl, Identity: p.identity(t, pl), Folder: p.folder(pl, t.Kind()), installed: map[string]bool{}}
	for _, b := range strings.Fields(p["bins"]) {
		d.installed[b] = true
	}
	if err := safePath(d.Folder); err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	return d, nil
}

// runs is the folder of the device's runs.
func (d *Device) runs() string {
	if d.Folder == "/data/local/tmp" {
		return "/data/local/tmp/corepin-runs"
	}
	return d.Folder + "/runs"
}
