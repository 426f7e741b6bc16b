package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Module is corepin's module path; a folder whose go.mod names it can
// build corepin for a device.
const Module = "corepin.dev/corepin"

// Binaries finds a static corepin for a device's platform: the one given,
// else the running one when it fits, else one built on the spot from
// corepin's source with CGO_ENABLED=0.
type Binaries struct {
	Given   string // --binary FILE: use this one, whatever it is
	Running string // the running corepin (os.Executable); "" when it is not corepin
	Source  string // a corepin source tree; "" to look from the working folder up
	Cache   string // where builds go; "" for the user's cache folder
	Log     io.Writer
}

// For returns the path of a corepin for p.
func (b *Binaries) For(ctx context.Context, p Platform) (string, error) {
	if b.Given != "" {
		return b.Given, nil
	}
	if b.Running != "" && fits(b.Running, p) == nil {
		return b.Running, nil
	}
	why := "this corepin is " + runtime.GOOS + "/" + runtime.GOARCH
	if b.Running != "" {
		if err := fits(b.Running, p); err != nil {
			why = err.Error()
		}
	}
	src := b.Source
	if src == "" {
		src = findSource()
	}
	_, goErr := exec.LookPath("go")
	if src == "" || goErr != nil {
		return "", fmt.Errorf("no corepin for %s (%s): %s, and there is no Go toolchain with corepin's source here to build one.\n"+
			"Build one in a clone of corepin with\n  CGO_ENABLED=0 GOOS=%s GOARCH=%s%s go build -o corepin-%s-%s ./cmd/corepin\nand pass it with --binary FILE",
			p, p.System, why, p.BuildOS(), p.Arch, goarmEnv(p), p.BuildOS(), p.Arch)
	}
	return b.build(ctx, src, p)
}

func goarmEnv(p Platform) string {
	if p.ARM == "" {
		return ""
	}
	return " GOARM=" + p.ARM
}

// fits says why a binary cannot run on p, or nil when it can: the same
// architecture, a static ELF (no interpreter to find on the device), and
// for Android a linux or android build.
func fits(path string, p Platform) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF binary", path)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("this corepin is dynamically linked (built with cgo)")
		}
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s has no Go build information", path)
	}
	var goos, goarch, goarm string
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		case "GOARM":
			goarm = s.Value
		}
	}
	if goarch != p.Arch || (goos != "linux" && goos != p.OS) {
		return fmt.Errorf("this corepin is %s/%s", goos, goarch)
	}
	if p.ARM != "" && goarm != "" && goarm[:1] > p.ARM {
		return fmt.Errorf("this corepin needs GOARM=%s", goarm)
	}
	return nil
}

// findSource looks for corepin's go.mod from the working folder up.
func findSource() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			first := sc.Scan() && strings.TrimSpace(sc.Text()) == "module "+Module
			f.Close()
			if first {
				return dir
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// build builds a static corepin for p from src.
func (b *Binaries) build(ctx context.Context, src string, p Platform) (string, error) {
	cache := b.Cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cache = filepath.Join(dir, "corepin", "builds")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("building corepin for %s: %w", p, err)
	}
	out := filepath.Join(cache, "corepin-"+p.BuildOS()+"-"+p.Arch+p.ARM)
	if b.Log != nil {
		fmt.Fprintf(b.Log, "corepin: building corepin for %s from %s\n", p, src)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/corepin")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.BuildOS(), "GOARCH="+p.Arch)
	if p.ARM != "" {
		cmd.Env = append(cmd.Env, "GOARM="+p.ARM)
	}
	if said, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building corepin for %s: %v%s", p, err, firstLines(string(said)))
	}
	return out, nil
}

// Hash is the first 16 hex digits of a file's SHA-256: the name of its copy
// on the device.
func Hash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Install puts the binary on the device as Folder/corepin-<hash> unless it
// is already there, and returns its device path. The copy goes to a
// temporary name first, so that an interrupted push is never taken for
// the binary.
func (d *Device) Install(ctx context.Context, local string, log io.Writer) (string, error) {
	hash, err := Hash(local)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", local, err)
	}
	bin := d.Folder + "/corepin-" + hash
	if d.installed[bin] { // the probe listed it
		fmt.Fprintf(log, "corepin: corepin-%s is already on %s\n", hash, d.Target)
		return bin, nil
	}
	// A name of its own: another host may push the same binary now.
	var r [4]byte
	rand.Read(r[:])
	part := bin + ".part-" + hex.EncodeToString(r[:])
	if code, err := d.Target.Run(ctx, "mkdir -p "+d.Folder, nil, nil); err != nil || code != 0 {
		return "", errors.Join(fmt.Errorf("making %s on %s", d.Folder, d.Target), err)
	}
	if err := d.Target.Push(ctx, local, part); err != nil {
		return "", err
	}
	var said strings.Builder
	code, err := d.Target.Run(ctx, "chmod 755 "+part+" && mv -f "+part+" "+bin, nil, &said)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", clientError("installing "+bin+" on "+d.Target.String(), code, said.String())
	}
	st, _ := os.Stat(local)
	fmt.Fprintf(log, "corepin: pushed corepin-%s (%.1f MB) to %s\n", hash, float64(st.Size())/1e6, d.Target)
	return bin, nil
}
