package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A kernel is one Debian kernel package (or the locally built uclamp
// kernel) the shapes boot.
type kernel struct {
	arch string // "amd64" or "arm64"
	// pkg is the package known to work; newest is a pattern of names to
	// fall back on when the archive has moved on from pkg.
	pkg    string
	newest *regexp.Regexp
	about  string
	// built names a kernel that is not a package: uclamp-kernel.sh builds it.
	built bool
}

var kernels = map[string]kernel{
	"6.1-amd64": {
		arch: "amd64", pkg: "linux-image-6.1.0-57-amd64",
		newest: regexp.MustCompile(`^linux-image-6\.1\.0-[0-9]+-amd64$`),
		about:  "Debian bookworm 6.1, CFS",
	},
	"6.12-amd64": {
		arch: "amd64", pkg: "linux-image-6.12.113+deb12-amd64-unsigned",
		newest: regexp.MustCompile(`^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$`),
		about:  "Debian bookworm 6.12, EEVDF",
	},
	"6.1-arm64": {
		arch: "arm64", pkg: "linux-image-6.1.0-57-arm64",
		newest: regexp.MustCompile(`^linux-image-6\.1\.0-[0-9]+-arm64$`),
		about:  "Debian bookworm 6.1 arm64, CFS",
	},
	"uclamp": {
		arch: "amd64", built: true,
		about: "6.12 from linux-source with CONFIG_UCLAMP_TASK (uclamp-kernel.sh)",
	},
}

// The modules a guest loads to reach the host's files over virtio 9p;
// their dependencies come from modules.dep, and those built in are skipped.
var shareModules = []string{"virtio_pci", "9pnet_virtio", "9p"}

// arm64Userland is what an arm64 guest needs of its own to run the tools
// the checks use as witnesses (the host's are amd64).
var arm64Userland = []string{"busybox-static", "libc6", "util-linux", "libsmartcols1", "libcap-ng0"}

// cacheDir is where kernels, initramfs images and device trees are kept.
func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	dir := filepath.Join(base, "corepin", "machines")
	return dir, os.MkdirAll(dir, 0o755)
}

// A fetched kernel, unpacked and ready to boot.
type bootKernel struct {
	key     string
	arch    string
	version string // uname -r
	image   string // what qemu's -kernel loads
	initrd  string
}

// prepareKernel downloads and unpacks the kernel (once), and builds its
// initramfs (again whenever /init changes).
func prepareKernel(ctx context.Context, key string) (bootKernel, error) {
	k, ok := kernels[key]
	if !ok {
		return bootKernel{}, fmt.Errorf("no kernel %q", key)
	}
	cache, err := cacheDir()
	if err != nil {
		return bootKernel{}, err
	}
	bk := bootKernel{key: key, arch: k.arch}
	var modules []string
	if k.built {
		matches, _ := filepath.Glob(filepath.Join(cache, "uclamp", "*", "vmlinux"))
		if len(matches) == 0 {
			return bootKernel{}, fmt.Errorf("no uclamp kernel in %s: build it with test/machines/uclamp-kernel.sh", filepath.Join(cache, "uclamp"))
		}
		sort.Strings(matches)
		bk.image = matches[len(matches)-1]
		bk.version = filepath.Base(filepath.Dir(bk.image))
	} else {
		tree := filepath.Join(cache, "kernels", key)
		if _, err := os.Stat(filepath.Join(tree, ".ready")); err != nil {
			if err := unpackKernel(ctx, cache, k, tree); err != nil {
				return bootKernel{}, err
			}
		}
		if bk.version, err = kernelVersion(tree); err != nil {
			return bootKernel{}, err
		}
		bk.image = filepath.Join(tree, "boot", "vmlinuz-"+bk.version)
		if k.arch == "amd64" {
			// An uncompressed vmlinux boots through the PVH entry, seconds
			// faster under TCG than the bzImage's own decompressor.
			if v, err := extractVmlinux(bk.image, filepath.Join(tree, "vmlinux")); err == nil {
				bk.image = v
			} else {
				fmt.Fprintf(os.Stderr, "machines: booting the bzImage (%v)\n", err)
			}
		}
		if modules, err = moduleFiles(tree, bk.version, shareModules); err != nil {
			return bootKernel{}, err
		}
	}
	busybox := "/bin/busybox"
	if k.arch == "arm64" {
		root, err := prepareArm64Userland(ctx, cache)
		if err != nil {
			return bootKernel{}, err
		}
		busybox = filepath.Join(root, "usr", "bin", "busybox")
	} else if _, err := os.Stat(busybox); err != nil {
		return bootKernel{}, fmt.Errorf("the initramfs needs a static busybox (apt-get install busybox-static): %w", err)
	}
	bk.initrd, err = buildInitramfs(cache, key, busybox, modules)
	return bk, err
}

// unpackKernel downloads the kernel package and unpacks it into tree.
func unpackKernel(ctx context.Context, cache string, k kernel, tree string) error {
	deb, err := downloadDeb(ctx, cache, k.arch, k.pkg, k.newest)
	if err != nil {
		return err
	}
	tmp := tree + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := runQuiet(ctx, "dpkg-deb", "-x", deb, tmp); err != nil {
		return fmt.Errorf("unpacking %s: %w", deb, err)
	}
	version, err := kernelVersion(tmp)
	if err != nil {
		return err
	}
	if err := runQuiet(ctx, "depmod", "-b", tmp, version); err != nil {
		return fmt.Errorf("depmod for %s: %w", version, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".ready"), nil, 0o644); err != nil {
		return err
	}
	os.RemoveAll(tree)
	return os.Rename(tmp, tree)
}

// kernelVersion is the one directory under lib/modules.
func kernelVersion(tree string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(tree, "lib", "modules"))
	if err != nil || len(entries) != 1 {
		return "", fmt.Errorf("expected one kernel under %s/lib/modules (%v)", tree, err)
	}
	return entries[0].Name(), nil
}

// downloadDeb fetches one package for arch into cache/debs and returns its
// path. arm64 packages come through a private lists directory, so the host
// needs no foreign architecture.
func downloadDeb(ctx context.Context, cache, arch, pkg string, newest *regexp.Regexp) (string, error) {
	debs := filepath.Join(cache, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return "", err
	}
	if found := findDeb(debs, pkg, arch); found != "" {
		return found, nil
	}
	aptArgs := []string{}
	name := pkg
	if arch != "amd64" {
		lists := filepath.Join(cache, arch+"-lists")
		aptArgs = []string{"-oAPT::Architectures=" + arch, "-oDir::State::Lists=" + lists}
		name = pkg + ":" + arch
		if _, err := os.Stat(filepath.Join(lists, "lock")); err != nil {
			if err := os.MkdirAll(filepath.Join(lists, "partial"), 0o755); err != nil {
				return "", err
			}
			if err := runIn(ctx, debs, "apt-get", append(append([]string{"-qq"}, aptArgs...), "update")...); err != nil {
				return "", fmt.Errorf("apt-get update for %s: %w", arch, err)
			}
		}
	}
	err := runIn(ctx, debs, "apt-get", append(append([]string{"-qq"}, aptArgs...), "download", name)...)
	if err != nil && arch == "amd64" {
		// The host's package lists may be older than the package (a
		// machine whose lists were last read when it was made): read them
		// again once before looking for another kernel of the series.
		fmt.Fprintf(os.Stderr, "machines: %s not in the package lists, reading them again\n", pkg)
		if uerr := runIn(ctx, debs, "apt-get", "-qq", "update"); uerr == nil {
			err = runIn(ctx, debs, "apt-get", "-qq", "download", name)
		}
	}
	if err != nil && newest != nil {
		// The archive drops old kernel ABIs; take the newest of the series.
		if alt := newestPackage(ctx, aptArgs, newest); alt != "" && alt != pkg {
			fmt.Fprintf(os.Stderr, "machines: %s is gone from the archive, using %s\n", pkg, alt)
			pkg, name = alt, alt
			if arch != "amd64" {
				name = alt + ":" + arch
			}
			err = runIn(ctx, debs, "apt-get", append(append([]string{"-qq"}, aptArgs...), "download", name)...)
		}
	}
	if err != nil {
		return "", fmt.Errorf("apt-get download %s: %w", name, err)
	}
	if found := findDeb(debs, pkg, arch); found != "" {
		return found, nil
	}
	return "", fmt.Errorf("apt-get download %s left no .deb in %s", name, debs)
}

func findDeb(dir, pkg, arch string) string {
	matches, _ := filepath.Glob(filepath.Join(dir, pkg+"_*_"+arch+".deb"))
	if len(matches) == 0 {
		matches, _ = filepath.Glob(filepath.Join(dir, pkg+"_*_all.deb"))
	}
	if len(matches) == 0 {
		return ""
	}
	sort.Strings(matches)
	return matches[len(matches)-1]
}

// newestPackage asks apt for the names matching re and returns the last in
// version order.
func newestPackage(ctx context.Context, aptArgs []string, re *regexp.Regexp) string {
	out, err := exec.CommandContext(ctx, "apt-cache", append(aptArgs, "pkgnames", "linux-image-")...).Output()
	if err != nil {
		return ""
	}
	var names []string
	for _, n := range strings.Fields(string(out)) {
		if re.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return versionLess(names[i], names[j]) })
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1]
}

// versionLess compares names by their runs of digits as numbers.
func versionLess(a, b string) bool {
	num := regexp.MustCompile(`[0-9]+|[^0-9]+`)
	pa, pb := num.FindAllString(a, -1), num.FindAllString(b, -1)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		var x, y int
		if _, err := fmt.Sscanf(pa[i], "%d", &x); err == nil {
			if _, err := fmt.Sscanf(pb[i], "%d", &y); err == nil {
				return x < y
			}
		}
		return pa[i] < pb[i]
	}
	return len(pa) < len(pb)
}

// moduleFiles resolves the wanted modules and their dependencies from
// modules.dep, dependencies first; modules built into the kernel are left
// out.
func moduleFiles(tree, version string, want []string) ([]string, error) {
	base := filepath.Join(tree, "lib", "modules", version)
	f, err := os.Open(filepath.Join(base, "modules.dep"))
	if err != nil {
		return nil, fmt.Errorf("reading modules.dep: %w", err)
	}
	defer f.Close()
	deps := map[string][]string{} // module name → its file, then its dependencies' files
	byFile := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		file, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		name := moduleName(file)
		deps[name] = append([]string{file}, strings.Fields(rest)...)
		byFile[file] = name
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var order []string
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		d, ok := deps[name]
		if !ok {
			return // built in
		}
		// modules.dep lists a module's dependencies so that the last loads
		// first.
		for i := len(d) - 1; i >= 1; i-- {
			visit(byFile[d[i]])
		}
		order = append(order, filepath.Join(base, d[0]))
	}
	for _, w := range want {
		visit(w)
	}
	return order, nil
}

// moduleName is the module's name as modprobe spells it: the file's base
// name without .ko and compression, dashes as underscores.
func moduleName(file string) string {
	n := filepath.Base(file)
	if i := strings.Index(n, ".ko"); i >= 0 {
		n = n[:i]
	}
	return strings.ReplaceAll(n, "-", "_")
}

// readModule returns a module's object, decompressed.
func readModule(path string) ([]byte, error) {
	switch {
	case strings.HasSuffix(path, ".xz"):
		return exec.Command("xz", "-dc", path).Output()
	case strings.HasSuffix(path, ".zst"):
		return exec.Command("zstd", "-dcq", path).Output()
	case strings.HasSuffix(path, ".gz"):
		return exec.Command("gzip", "-dc", path).Output()
	}
	return os.ReadFile(path)
}

// extractVmlinux finds the compressed ELF kernel inside a bzImage, as the
// kernel's scripts/extract-vmlinux does, and writes it to out (once).
func extractVmlinux(bzImage, out string) (string, error) {
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	data, err := os.ReadFile(bzImage)
	if err != nil {
		return "", err
	}
	formats := []struct {
		magic []byte
		tool  []string
	}{
		{[]byte("\xfd7zXZ\x00"), []string{"xz", "-dc"}},
		{[]byte("\x28\xb5\x2f\xfd"), []string{"zstd", "-dcq"}},
		{[]byte("\x1f\x8b\x08"), []string{"gzip", "-dc"}},
	}
	for _, f := range formats {
		for off := 0; ; {
			i := bytes.Index(data[off:], f.magic)
			if i < 0 {
				break
			}
			off += i
			cmd := exec.Command(f.tool[0], f.tool[1:]...)
			cmd.Stdin = bytes.NewReader(data[off:])
			elf, _ := cmd.Output() // trailing bytes after the stream make the tools complain
			if bytes.HasPrefix(elf, []byte("\x7fELF")) {
				if err := os.WriteFile(out+".tmp", elf, 0o644); err != nil {
					return "", err
				}
				return out, os.Rename(out+".tmp", out)
			}
			off++
		}
	}
	return "", fmt.Errorf("no compressed ELF image found in %s", bzImage)
}

// prepareArm64Userland unpacks the arm64 packages the guest needs into
// cache/arm64-root, with /bin, /sbin and /lib merged into /usr as on the host,
// and busybox's applets linked where util-linux has no tool of that name.
// The guest mounts its usr over the shared host root's.
func prepareArm64Userland(ctx context.Context, cache string) (string, error) {
	root := filepath.Join(cache, "arm64-root")
	if _, err := os.Stat(filepath.Join(root, ".ready")); err == nil {
		return root, nil
	}
	tmp := root + ".tmp"
	os.RemoveAll(tmp)
	for _, p := range arm64Userland {
		deb, err := downloadDeb(ctx, cache, "arm64", p, nil)
		if err != nil {
			return "", err
		}
		if err := runQuiet(ctx, "dpkg-deb", "-x", deb, tmp); err != nil {
			return "", fmt.Errorf("unpacking %s: %w", deb, err)
		}
	}
	for _, d := range []string{"bin", "sbin", "lib"} {
		if err := mergeInto(filepath.Join(tmp, d), filepath.Join(tmp, "usr", d)); err != nil {
			return "", err
		}
	}
	applets, err := exec.Command("/bin/busybox", "--list").Output()
	if err != nil {
		return "", fmt.Errorf("listing busybox's applets: %w", err)
	}
	bin := filepath.Join(tmp, "usr", "bin")
	for _, a := range strings.Fields(string(applets)) {
		if exists(filepath.Join(bin, a)) || exists(filepath.Join(tmp, "usr", "sbin", a)) {
			continue
		}
		if err := os.Symlink("busybox", filepath.Join(bin, a)); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".ready"), nil, 0o644); err != nil {
		return "", err
	}
	os.RemoveAll(root)
	return root, os.Rename(tmp, root)
}

// mergeInto moves everything under src into dst and removes src.
func mergeInto(src, dst string) error {
	entries, err := os.ReadDir(src)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if e.IsDir() && exists(to) {
			if err := mergeInto(from, to); err != nil {
				return err
			}
			continue
		}
		if err := os.Rename(from, to); err != nil {
			return err
		}
	}
	return os.Remove(src)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func runQuiet(ctx context.Context, name string, args ...string) error {
	return runIn(ctx, "", name, args...)
}

// runIn runs a host tool in dir, its output shown only when it fails.
func runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func cmdFetch(ctx context.Context, args []string) int {
	fs := newFlags("fetch")
	only := fs.String("kernel", "", "fetch only this kernel")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	keys := []string{"6.1-amd64", "6.12-amd64", "6.1-arm64"}
	if *only != "" {
		keys = []string{*only}
	}
	for _, key := range keys {
		bk, err := prepareKernel(ctx, key)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Printf("%-11s %s  %s\n", key, bk.version, bk.image)
	}
	return 0
}
