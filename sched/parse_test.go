package sched

import "testing"

func TestParsePolicyPriority(t *testing.T) {
	for _, tt := range []struct {
		in   string
		p    Policy
		prio int
	}{{"fifo:10", FIFO, 10}, {"rr:1", RR, 1}, {"other", Normal, 0}, {"normal", Normal, 0}, {"batch", Batch, 0}} {
		p, prio, err := ParsePolicyPriority(tt.in)
		if err != nil || p != tt.p || prio != tt.prio {
			t.Errorf("%q = %v:%d, %v; want %v:%d", tt.in, p, prio, err, tt.p, tt.prio)
		}
	}
	for _, bad := range []string{"", "fast", "fifo:x", "fifo:"} {
		if _, _, err := ParsePolicyPriority(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Whatever parses names a policy with its own name.
func FuzzParsePolicyPriority(f *testing.F) {
	for _, s := range []string{"fifo:10", "rr:99", "other", "idle", "x:y", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, _, err := ParsePolicyPriority(text)
		if err != nil {
			return
		}
		if q, err := ParsePolicy(p.String()); err != nil || q != p {
			t.Errorf("%q parsed as %v, whose name reads back as %v, %v", text, p, q, err)
		}
	})
}

// An errno name reads back as the errno that prints it.
func FuzzErrnoText(f *testing.F) {
	for _, s := range []string{"EPERM", "EOPNOTSUPP", "ENOTSUP", "errno 300", "errno x", "", "EBOGUS"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var e Errno
		if err := e.UnmarshalText([]byte(text)); err != nil {
			return
		}
		var back Errno
		if err := back.UnmarshalText([]byte(e.String())); err != nil || back != e {
			t.Errorf("%q read as %d (%s), which reads back as %d, %v", text, e, e, back, err)
		}
	})
}
