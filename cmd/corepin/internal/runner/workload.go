package runner

import (
	"os"

	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/launch"
)

// WorkloadCommand is the reserved first argument that makes corepin run one
// built-in workload in a process of its own and print its result as JSON
// (workloads.ChildMain, answered by Dispatch):
//
//	corepin workload NAME --size quick|full
const WorkloadCommand = workloads.ChildCommand

// workloadVerb is the child of a built-in workload that runWorkloadProcess
// starts: the helper verb corepin adds to launch's own.
var workloadVerb = launch.Verb{Name: WorkloadCommand, Main: func(args []string) int {
	return workloads.ChildMain(args, os.Stdout, os.Stderr)
}}

// Dispatch runs the helper verb that args[1] names, launch's (the
// launcher, a competing process, the guard) or a built-in workload's
// child, and exits with its status; otherwise it returns at once. It is
// the one table of the helper processes corepin answers to: corepin's
// main and every TestMain that stands in for corepin call it first thing.
func Dispatch(args []string) { launch.Dispatch(args, workloadVerb) }

// IsVerb says whether name is one of the helper verbs Dispatch runs.
func IsVerb(name string) bool { return launch.IsVerb(name, workloadVerb) }
