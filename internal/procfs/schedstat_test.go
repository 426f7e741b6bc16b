package procfs

import (
	"os"
	"testing"
	"time"
)

const schedFile = `fib: a (name) (25226, #threads: 1)
-------------------------------------------------------------------
se.exec_start                                :        808142.775380
se.sum_exec_runtime                          :             0.735879
se.nr_migrations                             :                   17
nr_switches                                  :                    9
nr_voluntary_switches                        :                    2
nr_involuntary_switches                      :                    7
current_node=0, numa_group_id=0
`

func TestParseSchedStat(t *testing.T) {
	s, err := ParseSchedStat([]byte("83697 58660 2\n"))
	if err != nil || s.Run != 83697*time.Nanosecond || s.Wait != 58660*time.Nanosecond || s.Timeslices != 2 {
		t.Errorf("%+v, %v", s, err)
	}
	for _, bad := range []string{"", "1 2", "1 2 3 4", "a 2 3", "-1 2 3", "9223372036854775807 0 0"} {
		if _, err := ParseSchedStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseSchedDebug(t *testing.T) {
	d, err := ParseSchedDebug([]byte(schedFile))
	if err != nil || d.Migrations != 17 || d.Involuntary != 7 {
		t.Errorf("%+v, %v", d, err)
	}
	// A kernel that lacks one field gives -1 for it.
	d, err = ParseSchedDebug([]byte("se.nr_migrations : 3\n"))
	if err != nil || d.Migrations != 3 || d.Involuntary != -1 {
		t.Errorf("%+v, %v", d, err)
	}
	for _, bad := range []string{"", "x : 1", "se.nr_migrations : -3", "nr_involuntary_switches : many"} {
		if _, err := ParseSchedDebug([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseOwnSchedFiles(t *testing.T) {
	for name, parse := range map[string]func([]byte) error{
		"schedstat": func(b []byte) error { _, err := ParseSchedStat(b); return err },
		"sched":     func(b []byte) error { _, err := ParseSchedDebug(b); return err },
	} {
		data, err := os.ReadFile("/proc/thread-self/" + name)
		if err != nil {
			t.Logf("no /proc/thread-self/%s: %v", name, err)
			continue
		}
		if err := parse(data); err != nil {
			t.Errorf("own %s: %v", name, err)
		}
	}
}

func FuzzParseSchedStat(f *testing.F) {
	f.Add([]byte("83697 58660 2\n"))
	f.Add([]byte("0 0 0"))
	if data, err := os.ReadFile("testdata/schedstat-cat"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchedStat(data)
		if err == nil && (s.Run < 0 || s.Wait < 0) {
			t.Errorf("%q gave negative times %+v", data, s)
		}
	})
}

func FuzzParseSchedDebug(f *testing.F) {
	f.Add([]byte(schedFile))
	f.Add([]byte("se.nr_migrations:1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseSchedDebug(data)
		if err == nil && d.Migrations < 0 && d.Involuntary < 0 {
			t.Errorf("%q: no field, no error", data)
		}
	})
}
