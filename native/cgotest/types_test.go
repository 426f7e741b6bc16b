//go:build linux && cgo

package cgotest

import (
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
)

type cpusetSet = cpuset.Set

func qosLevel(l int) qos.Level { return qos.Level(l) }

func policyp(p int) *sched.Policy { v := sched.Policy(p); return &v }
