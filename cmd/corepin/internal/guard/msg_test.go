package guard

import (
	"reflect"
	"strings"
	"testing"
)

// Every message the guard is sent reads back as it was, a path with
// spaces, quotes or a newline included, one line each.
func TestLinesRoundTrip(t *testing.T) {
	for _, m := range []msg{
		{Cgroup: &cgroupMsg{Version: 1, Name: "corepin-42-1", Dirs: map[string]string{"cpu": "/sys/fs/cgroup/cpu/corepin-42-1", "cpuset": "/sys/fs/cgroup/a b\\040c/corepin-42-1"}}},
		{Cgroup: &cgroupMsg{Version: 2, Name: "corepin-7-3", Dirs: map[string]string{"": "/sys/fs/cgroup/user.slice/corepin-7-3"}}},
		{Group: &groupMsg{PGID: 1234, Start: 18446744073709551615}},
		{Ungroup: 1234},
		{Journal: &tuneMsg{Root: "/", Journal: "/tmp/a \"journal\"\n.json"}},
		{Journal: &tuneMsg{Root: "/tmp/fixture", Journal: ""}},
		{Results: "/home/me/corepin results"},
		{Done: true},
	} {
		line := string(m.line())
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Errorf("%+v is not one line: %q", m, line)
			continue
		}
		got, err := parseLine(strings.TrimSuffix(line, "\n"))
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%q read back as %+v, %v; want %+v", line, got, err, m)
		}
	}
}

func TestLinesRefused(t *testing.T) {
	for _, s := range []string{"", "cgroup", "cgroup x \"n\"", "cgroup 1 \"n\" \"cpu\"", "group 1", "group a 2", "group 1 -2",
		"ungroup", "journal \"/\"", "results \"a", "results  \"a\"", "done now", "launch \"rm\"", "results \"a\" ", "ungroup 0", "results \"\"", "group  1 2", " done"} {
		if m, err := parseLine(s); err == nil {
			t.Errorf("%q read as %+v", s, m)
		}
	}
}

// The guard reads what arrives on its pipe: no line makes it panic, and
// what it reads writes the same line again.
func FuzzGuardLine(f *testing.F) {
	f.Add(`cgroup 1 "corepin-1-1" "cpu" "/sys/fs/cgroup/cpu/corepin-1-1"`)
	f.Add("group 12 345")
	f.Add(`journal "/" "/run/corepin/system.json"`)
	f.Add("done")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseLine(s)
		if err != nil {
			return
		}
		again, err := parseLine(strings.TrimSuffix(string(m.line()), "\n"))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Errorf("%q read as %+v, which reads back as %+v, %v", s, m, again, err)
		}
	})
}
