package sched

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
)

func TestErrnoIsAValueWrittenAsItsName(t *testing.T) {
	type rec struct {
		Errno Errno `json:"errno,omitempty"`
	}
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.ENOENT, syscall.EINVAL, syscall.Errno(95)} {
		data, err := json.Marshal(rec{Errno(e)})
		if err != nil {
			t.Fatal(err)
		}
		var back rec
		if err := json.Unmarshal(data, &back); err != nil || back.Errno != Errno(e) {
			t.Errorf("%v: %s read back as %v, %v", e, data, back.Errno, err)
		}
	}
	if data, _ := json.Marshal(rec{Errno(95)}); string(data) != `{"errno":"EOPNOTSUPP"}` {
		t.Errorf("errno 95 is written %s", data)
	}
	if data, _ := json.Marshal(rec{}); string(data) != `{}` {
		t.Errorf("no errno is written %s", data)
	}
	if ErrnoOf(fmt.Errorf("sched_setattr: %w", syscall.EPERM)) != Errno(syscall.EPERM) || ErrnoOf(fmt.Errorf("plain")) != 0 {
		t.Error("ErrnoOf does not find the errno through wrapping")
	}
	var e Errno
	if err := e.UnmarshalText([]byte("EBOGUS")); err == nil {
		t.Error("an unknown name was read")
	}
}
