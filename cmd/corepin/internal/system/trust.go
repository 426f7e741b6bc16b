package system

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/results/evidence"
)

// A journal tells root which values to write into which files, so it is
// trusted no more than what could have written it. These errors say why
// one was refused; in each case nothing was written.
var (
	// ErrUntrustedJournal: the journal, or its folder, could have been
	// written by someone other than root (or, for a --root tree of one's
	// own, oneself), or was reached through a symbolic link, or names a
	// file outside the kernel's trees.
	ErrUntrustedJournal = errors.New("untrusted journal")
	// ErrOtherBoot: the journal was made before the machine last started.
	// A restart put back every value it holds; its task IDs and start
	// times now name other tasks.
	ErrOtherBoot = errors.New("journal of another boot")
	// ErrDamagedJournal: the journal cannot be read as a journal.
	ErrDamagedJournal = errors.New("damaged journal")
)

// openTrustedDir opens the journal's folder, refusing a symbolic link, a
// folder owned by anyone but root or the user running corepin, and one
// that group or others may write: whoever can write the folder can put a
// journal of his own in it.
func openTrustedDir(dir string) (int, error) {
	fd, err := retry(func() (int, error) {
		return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return -1, fmt.Errorf("%w: the journal's folder %s is a symbolic link; give the real folder", ErrUntrustedJournal, dir)
		}
		return -1, fmt.Errorf("opening the journal's folder: %w", &os.PathError{Op: "open", Path: dir, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("opening the journal's folder: %w", &os.PathError{Op: "fstat", Path: dir, Err: err})
	}
	euid := uint32(os.Geteuid())
	switch {
	case st.Uid != 0 && st.Uid != euid:
		err = fmt.Errorf("%w: the journal's folder %s belongs to uid %d, not to root or to you", ErrUntrustedJournal, dir, st.Uid)
	case uint32(st.Mode)&0o022 != 0:
		err = fmt.Errorf("%w: the journal's folder %s may be written by others (mode %04o); keep the journal in a folder only its owner can write", ErrUntrustedJournal, dir, uint32(st.Mode)&0o7777)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openJournal opens the journal for reading, or returns nil when there is
// none. It refuses a symbolic link (O_NOFOLLOW, in a folder opened the
// same way), anything but a regular file, a file that group or others may
// write, and a file owned by anyone but root. A user's own --root tree
// may hold a journal of his own; the live machine's journal must be
// root's, whoever reads it.
func (m *Machine) openJournal() (*os.File, error) {
	path := m.JournalPath()
	dfd, err := openTrustedDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	// O_NONBLOCK: a FIFO put in the journal's place must not hang the open.
	fd, err := retry(func() (int, error) {
		return unix.Openat(dfd, filepath.Base(path), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	switch {
	case err == unix.ENOENT:
		return nil, nil
	case err == unix.ELOOP:
		return nil, fmt.Errorf("%w: the journal %s is a symbolic link; corepin reads only the real file", ErrUntrustedJournal, path)
	case err != nil:
		return nil, fmt.Errorf("reading the journal: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reading the journal: %w", &os.PathError{Op: "fstat", Path: path, Err: err})
	}
	mode := uint32(st.Mode)
	own := st.Uid == 0 || (st.Uid == uint32(os.Geteuid()) && !m.Root.IsHost())
	switch {
	case mode&unix.S_IFMT != unix.S_IFREG:
		err = fmt.Errorf("%w: the journal %s is not a regular file", ErrUntrustedJournal, path)
	case !own:
		err = fmt.Errorf("%w: the journal %s belongs to uid %d, not to root; remove it", ErrUntrustedJournal, path, st.Uid)
	case mode&0o022 != 0:
		err = fmt.Errorf("%w: the journal %s may be written by others (mode %04o); remove it", ErrUntrustedJournal, path, mode&0o7777)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// checkEntries refuses a journal any of whose entries names a file
// outside the kernel's trees under the root: sys/, proc/ and the cgroup
// hierarchies mounted there. It runs on the whole journal before anything
// is written, so that a journal with one bad entry changes nothing.
func (m *Machine) checkEntries(j *Journal) error {
	trees := append([]string{"sys", "proc"}, cgroupMounts(m.Root)...)
	for _, l := range j.Layers {
		for _, e := range l.Entries {
			paths := []string{e.Path}
			switch e.Op {
			case evidence.OpWrite, "", evidence.OpAffinity, evidence.OpControl:
			case evidence.OpMove:
				paths = append(paths, e.Old)
			case evidence.OpMkdir:
				if e.Old != "" {
					paths = append(paths, e.Old)
				}
			default:
				return fmt.Errorf("%w: the journal %s has an entry of an unknown kind %q; nothing was put back", ErrUntrustedJournal, m.JournalPath(), e.Op)
			}
			for _, p := range paths {
				if why := outside(p, trees); why != "" {
					return fmt.Errorf("%w: the journal %s names %q, %s; nothing was put back", ErrUntrustedJournal, m.JournalPath(), p, why)
				}
			}
		}
	}
	return nil
}

// outside says why path, relative to the root, is not in one of trees,
// or "" when it is.
func outside(path string, trees []string) string {
	if path == "" || filepath.IsAbs(path) {
		return "not a path relative to the machine's root"
	}
	clean := filepath.Clean(path)
	if slices.Contains(strings.Split(clean, string(filepath.Separator)), "..") {
		return "which leaves the machine's root"
	}
	for _, t := range trees {
		if strings.HasPrefix(clean, t+"/") {
			if t == "proc" {
				return outsideProc(clean)
			}
			return ""
		}
	}
	return "outside sys/, proc/ and the cgroup mounts"
}

// outsideProc says why a path under proc/ is not one corepin writes, or
// "" when it is: proc/irq/…, proc/sys/…, or a task, proc/PID/task/TID
// (a shield's affinity entry). Anything else under a process's folder
// leads out of the tree through a magic link the kernel follows wherever
// it points (proc/self/root/etc/passwd is the machine's /etc/passwd,
// proc/PID/cwd and fd/N another process's files), so no such path is
// trusted, whatever the journal's owner.
func outsideProc(clean string) string {
	parts := strings.Split(clean, "/")
	switch {
	case len(parts) > 2 && (parts[1] == "irq" || parts[1] == "sys"):
		return ""
	case len(parts) == 4 && isNumber(parts[1]) && parts[2] == "task" && isNumber(parts[3]):
		return ""
	}
	return "which is under proc/ but neither proc/irq, proc/sys nor a task (proc/PID/task/TID): a process's root, cwd, exe or fd links lead out of the machine's trees"
}

// isNumber says whether s is a decimal number.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cgroupMounts lists the cgroup hierarchies mounted under the root, as
// paths relative to it (sys/fs/cgroup, dev/cpuset on Android). A fixture
// tree without proc/self/mountinfo has none.
func cgroupMounts(root fsroot.Root) []string {
	mounts, err := cgroupfs.ReadMounts(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range mounts {
		// A mount at / itself would let the journal name any file.
		if rel := strings.TrimPrefix(filepath.Clean(m.Dir), "/"); rel != "" {
			out = append(out, rel)
		}
	}
	return out
}

// bootPath is the kernel's random ID of the current boot.
const bootPath = "proc/sys/kernel/random/boot_id"

// bootID reads the boot ID under the root; "" where the root has none (a
// fixture tree).
func bootID(root fsroot.Root) (string, error) {
	data, err := root.ReadFile(bootPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the boot ID: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}
