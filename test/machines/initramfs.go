package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// initScript is the guest's /init. It mounts the host's root read-only over
// 9p, the guest's own proc, sys and dev over it, a tmpfs on /tmp and the
// writable results share on /tmp/machine; runs the shape's setup.sh (as
// busybox, outside the chroot: it mounts cgroup2 where the shape has
// cgroups), then the command chrooted into the host
// root; writes the command's exit status to the share and resets the
// machine, which qemu's -no-reboot turns into its exit (a reset needs no
// ACPI, which a small kernel may lack).
const initScript = `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /host /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
for m in $(cat /etc/modules); do
	insmod /lib/modules/$m || echo "machine: insmod $m failed"
done
die() { echo "machine: $*"; reboot -f; }
opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $opts,cache=loose,ro hostroot /host || die "cannot mount the host root"
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs tmpfs /host/dev/shm
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
mkdir -p /host/tmp/machine /host/tmp/home
mount -t 9p -o $opts results /host/tmp/machine || die "cannot mount the results share"
. /host/tmp/machine/setup.sh
echo "@@machine-command-begin@@"
chroot /host /bin/sh /tmp/machine/command.sh
echo $? > /host/tmp/machine/status
echo "@@machine-command-end@@"
sync
umount /host/tmp/machine
reboot -f
`

// buildInitramfs writes (once per content) a gzip'd newc cpio archive with
// busybox, the share's modules and /init, and returns its path.
func buildInitramfs(cache, key, busybox string, modules []string) (string, error) {
	var files []cpioFile
	var order []string
	for _, m := range modules {
		data, err := readModule(m)
		if err != nil {
			return "", fmt.Errorf("decompressing %s: %w", m, err)
		}
		name := moduleName(m) + ".ko"
		order = append(order, name)
		files = append(files, cpioFile{name: "lib/modules/" + name, mode: 0o100644, data: data})
	}
	bb, err := os.ReadFile(busybox)
	if err != nil {
		return "", fmt.Errorf("reading busybox: %w", err)
	}
	head := []cpioFile{
		{name: "bin", mode: 0o40755},
		{name: "dev", mode: 0o40755},
		{name: "dev/console", mode: 0o20600, rdevMajor: 5, rdevMinor: 1},
		{name: "etc", mode: 0o40755},
		{name: "lib", mode: 0o40755},
		{name: "lib/modules", mode: 0o40755},
		{name: "bin/busybox", mode: 0o100755, data: bb},
		{name: "init", mode: 0o100755, data: []byte(initScript)},
		{name: "etc/modules", mode: 0o100644, data: []byte(strings.Join(order, "\n") + "\n")},
	}
	files = append(head, files...)

	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %o %d\n", f.name, f.mode, len(f.data))
		h.Write(f.data)
	}
	out := filepath.Join(cache, "initrd", fmt.Sprintf("%s-%x.cpio.gz", key, h.Sum(nil)[:6]))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := writeCpio(zw, files); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	if err := os.WriteFile(out+".tmp", buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return out, os.Rename(out+".tmp", out)
}

// A cpioFile is one entry of a newc archive.
type cpioFile struct {
	name                 string
	mode                 uint32 // file type and permission bits, as in stat(2)
	data                 []byte // contents of a regular file, target of a symlink
	rdevMajor, rdevMinor uint32
}

// writeCpio writes files as a newc ("070701") archive, the format the kernel
// unpacks into its initial root.
func writeCpio(w io.Writer, files []cpioFile) error {
	pad := func(n int) error {
		if r := n % 4; r != 0 {
			_, err := w.Write(make([]byte, 4-r))
			return err
		}
		return nil
	}
	entry := func(ino int, f cpioFile) error {
		nlink := 1
		if f.mode&0o170000 == 0o040000 {
			nlink = 2
		}
		hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			ino, f.mode, 0, 0, nlink, 0, len(f.data), 0, 0, f.rdevMajor, f.rdevMinor, len(f.name)+1, 0)
		if _, err := io.WriteString(w, hdr+f.name+"\x00"); err != nil {
			return err
		}
		if err := pad(len(hdr) + len(f.name) + 1); err != nil {
			return err
		}
		if _, err := w.Write(f.data); err != nil {
			return err
		}
		return pad(len(f.data))
	}
	for i, f := range files {
		if err := entry(i+1, f); err != nil {
			return err
		}
	}
	return entry(0, cpioFile{name: "TRAILER!!!"})
}
