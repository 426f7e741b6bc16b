package procfs

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func statLine(comm string, utime, stime, start uint64, cpu int) string {
	f := make([]string, 52)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2], f[3] = "1234", "("+comm+")", "R", "1"
	f[13], f[14], f[21], f[38] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(start), fmt.Sprint(cpu)
	return strings.Join(f, " ") + "\n"
}

func TestParseTaskStat(t *testing.T) {
	for _, comm := range []string{"fib", "a b", "x) (y", ")", "(", ""} {
		s, err := ParseTaskStat([]byte(statLine(comm, 7, 3, 99, 5)))
		if err != nil {
			t.Errorf("%q: %v", comm, err)
			continue
		}
		if s.Comm != comm || s.CPUTicks() != 10 || s.StartTime != 99 || s.Processor != 5 || s.State != 'R' || s.PPid != 1 {
			t.Errorf("%q: %+v", comm, s)
		}
	}
	for _, bad := range []string{"", "1234 fib R", "1 (x) R 1 2", "1 (x) RR" + strings.Repeat(" 1", 50)} {
		if _, err := ParseTaskStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseOwnStat(t *testing.T) {
	data, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skip("no /proc/thread-self:", err)
	}
	s, err := ParseTaskStat(data)
	if err != nil || s.StartTime == 0 {
		t.Errorf("own stat: %+v, %v", s, err)
	}
}

func FuzzParseTaskStat(f *testing.F) {
	f.Add([]byte(statLine("fib", 1, 2, 3, 4)))
	f.Add([]byte(statLine("a) (b", 1, 2, 3, 4)))
	f.Add([]byte("1 (x"))
	for _, name := range []string{"testdata/stat-cat", "testdata/stat-kthreadd"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseTaskStat(data)
		if err == nil && strings.Count(string(data), "(") == 0 {
			t.Fatalf("parsed a line without a name: %+v", s)
		}
	})
}
