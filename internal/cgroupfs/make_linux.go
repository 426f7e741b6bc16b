package cgroupfs

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// Make makes the cgroup name (NewName's, which says its kind) in each of
// parent's directories and holds it to l. What a failure leaves made is
// removed again.
func Make(parent Parent, name string, l Limits) (*Group, error) {
	g := Found(parent.Version, name, nil)
	for _, ctl := range slices.Sorted(maps.Keys(parent.Dirs)) {
		if err := g.grow(ctl, parent.Dirs[ctl]); err != nil {
			g.Remove()
			return nil, err
		}
	}
	if err := g.Limit(l); err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

// Grow makes the group in one more v1 hierarchy, below parent, and
// holds it there to l: a run's weight, made only once a nice value asks
// for one. A failure leaves nothing made.
func (g *Group) Grow(ctl, parent string, l Limits) error {
	if err := g.grow(ctl, parent); err != nil {
		return err
	}
	if err := g.Limit(l); err != nil {
		g.Drop(ctl)
		return err
	}
	return nil
}

func (g *Group) grow(ctl, parent string) error {
	dir := filepath.Join(parent, g.Name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("making %s cgroup: %w", g.what(ctl), err)
	}
	g.Dirs[ctl], g.parents[ctl] = dir, parent
	return nil
}

// FD is the v2 directory opened for CLONE_INTO_CGROUP (exec.Cmd's
// SysProcAttr.CgroupFD): a child forked into it is born there. It is
// closed by Remove.
func (g *Group) FD() (int, error) {
	if g.fd >= 0 {
		return g.fd, nil
	}
	fd, err := unix.Open(g.Dirs[""], unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s cgroup: %w", g.kind.what(), err)
	}
	g.fd = fd
	return fd, nil
}
