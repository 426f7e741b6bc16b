package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// Binaries finds a corepin for a device's platform: the one given, else
// the running one when it fits, else one built on the spot from corepin's
// source with CGO_ENABLED=0 — a static binary for Linux; for Android on
// arm64 Go's android build, a position-independent executable that needs
// only the system's loader (/system/bin/linker64) and no library.
type Binaries struct {
	Given   string // --binary FILE: checked to fit the device, then used
	Running string // the running corepin (os.Executable); "" when it is not corepin
	Source  string // a corepin source tree; "" to look from the working folder up
	Cache   string // where builds go; "" for the user's cache folder
	Log     io.Writer
}

// For returns the path of a corepin for p.
func (b *Binaries) For(ctx context.Context, p Platform) (string, error) {
	if b.Given != "" {
		if err := fits(b.Given, p); err != nil {
			return "", fmt.Errorf("--binary %s cannot run on the device (%s, %s): it %v", b.Given, p, p.System, err)
		}
		return b.Given, nil
	}
	if b.Running != "" && fits(b.Running, p) == nil {
		return b.Running, nil
	}
	why := "this corepin is " + runtime.GOOS + "/" + runtime.GOARCH
	if b.Running != "" {
		if err := fits(b.Running, p); err != nil {
			why = "this corepin " + err.Error()
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

// Ready is the corepin For would give without building one: the given
// one or the running one when it fits, else an earlier build for p; ""
// when there is none.
func (b *Binaries) Ready(p Platform) string {
	switch {
	case b.Given != "" && fits(b.Given, p) == nil:
		return b.Given
	case b.Given == "" && b.Running != "" && fits(b.Running, p) == nil:
		return b.Running
	case b.Given == "":
		if out := b.buildPath(p); out != "" && fits(out, p) == nil {
			return out
		}
	}
	return ""
}

func goarmEnv(p Platform) string {
	if p.ARM == "" {
		return ""
	}
	return " GOARM=" + p.ARM
}

// elfArch is the GOARCH of an ELF file's machine, "" for one Go does not
// build for.
func elfArch(f *elf.File) string {
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64"
	case elf.EM_386:
		return "386"
	case elf.EM_AARCH64:
		return "arm64"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_RISCV:
		if f.Class == elf.ELFCLASS64 {
			return "riscv64"
		}
	case elf.EM_PPC64:
		if f.ByteOrder == binary.LittleEndian {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_LOONGARCH:
		return "loong64"
	case elf.EM_MIPS:
		if f.Class == elf.ELFCLASS64 {
			return "mips64"
		}
	}
	return ""
}

// interpreter is the program loader an ELF file names (PT_INTERP), "" for
// a static binary.
func interpreter(f *elf.File) string {
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			data, err := io.ReadAll(io.LimitReader(prog.Open(), 4096))
			if err != nil {
				return "?"
			}
			return strings.TrimRight(string(data), "\x00")
		}
	}
	return ""
}

// Linkage says in words how a binary is linked, as its ELF header shows:
// "static", or "position-independent, loaded by /system/bin/linker64".
func Linkage(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return "not an ELF file"
	}
	defer f.Close()
	interp := interpreter(f)
	switch {
	case interp == "" && f.Type == elf.ET_DYN:
		return "static, position-independent"
	case interp == "":
		return "static"
	case f.Type == elf.ET_DYN:
		return "position-independent, loaded by " + interp
	}
	return "dynamically linked, loaded by " + interp
}

// fits says why a binary cannot run on p, or nil when it can: an ELF file
// of the device's architecture; a Go build for linux, or for android on
// Android; and static, or on Android loaded by Android's own loader
// (/system/bin/linker64 or linker), which every Android device has. The
// message is what the binary is, to follow "it" or "this corepin".
func fits(path string, p Platform) error {
	f, err := elf.Open(path)
	if err != nil {
		var fe *elf.FormatError
		switch {
		case errors.As(err, &fe):
			return fmt.Errorf("is not an ELF executable")
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("does not exist")
		}
		return fmt.Errorf("cannot be read: %w", err)
	}
	defer f.Close()
	if arch := elfArch(f); arch != p.Arch {
		if arch == "" {
			arch = f.Machine.String()
		}
		return fmt.Errorf("is an ELF file for %s, and the device is %s", arch, p.Arch)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("is not an executable (ELF type %s)", f.Type)
	}
	if interp := interpreter(f); interp != "" && !(p.OS == "android" && strings.HasPrefix(interp, "/system/bin/linker")) {
		return fmt.Errorf("is dynamically linked (its loader is %s; build it with CGO_ENABLED=0)", interp)
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("has no Go build information: it is not a corepin build")
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
		return fmt.Errorf("is %s/%s", goos, goarch)
	}
	if p.ARM != "" && goarm != "" && goarm[:1] > p.ARM {
		return fmt.Errorf("needs GOARM=%s", goarm)
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

// cache is the folder of corepin's builds.
func (b *Binaries) cache() string {
	if b.Cache != "" {
		return b.Cache
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "corepin", "builds")
}

func buildName(p Platform) string { return "corepin-" + p.BuildOS() + "-" + p.Arch + p.ARM }

// buildPath is an earlier build for p, "" when there is none.
func (b *Binaries) buildPath(p Platform) string {
	out := filepath.Join(b.cache(), buildName(p))
	if _, err := os.Stat(out); err != nil {
		return ""
	}
	return out
}

// build builds corepin for p from src with CGO_ENABLED=0.
func (b *Binaries) build(ctx context.Context, src string, p Platform) (string, error) {
	cache := b.cache()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("building corepin for %s: %w", p, err)
	}
	out := filepath.Join(cache, buildName(p))
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
	if err := runChecked(ctx, d.Target, "making "+d.Folder, "mkdir -p "+d.Folder, nil); err != nil {
		return "", err
	}
	// What a failed push or install leaves is removed where the device
	// still answers (corepin --on T clean removes it otherwise).
	if err := d.Target.Push(ctx, local, part); err != nil {
		runChecked(ctx, d.Target, "removing "+part, "rm -f "+part, nil)
		return "", err
	}
	if err := runChecked(ctx, d.Target, "installing "+bin, "chmod 755 "+part+" && mv -f "+part+" "+bin, nil); err != nil {
		runChecked(ctx, d.Target, "removing "+part, "rm -f "+part, nil)
		return "", err
	}
	st, _ := os.Stat(local)
	fmt.Fprintf(log, "corepin: pushed corepin-%s (%.1f MB, %s) to %s\n", hash, float64(st.Size())/1e6, Linkage(local), d.Target)
	return bin, nil
}
