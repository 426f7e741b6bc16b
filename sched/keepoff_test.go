package sched

import (
	"errors"
	"testing"

	"corepin.dev/corepin/cpuset"
)

func TestOffCPUs(t *testing.T) {
	for _, tc := range []struct {
		name              string
		mask, avoid, core cpuset.Set
		off               cpuset.Set
		onCore            bool
		err               error
	}{
		{"off the whole core", cpuset.Range(0, 7), cpuset.Of(6), cpuset.Range(6, 7), cpuset.Range(0, 5), false, nil},
		{"no SMT", cpuset.Range(0, 3), cpuset.Of(3), cpuset.Of(3), cpuset.Range(0, 2), false, nil},
		{"siblings unknown", cpuset.Range(0, 3), cpuset.Of(3), cpuset.Set{}, cpuset.Range(0, 2), false, nil},
		{"only the sibling is left", cpuset.Range(6, 7), cpuset.Of(6), cpuset.Range(6, 7), cpuset.Of(7), true, nil},
		{"a soft target of two cores", cpuset.Range(0, 7), cpuset.Of(4, 6), cpuset.Range(4, 7), cpuset.Range(0, 3), false, nil},
		{"nothing else", cpuset.Of(6), cpuset.Of(6), cpuset.Range(6, 7), cpuset.Of(6), false, ErrNoOtherCPU},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, onCore, err := OffCPUs(tc.mask, tc.avoid, tc.core)
			if !off.Equal(tc.off) || onCore != tc.onCore || !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Errorf("OffCPUs(%s, %s, %s) = %s, %v, %v; want %s, %v, %v", tc.mask, tc.avoid, tc.core, off, onCore, err, tc.off, tc.onCore, tc.err)
			}
		})
	}
}
