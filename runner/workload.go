package runner

import "corepin.dev/corepin/launch"

// WorkloadCommand is the reserved first argument that makes corepin run one
// built-in workload in a process of its own and print its result as JSON
// (launch.WorkloadArg, answered by launch.Dispatch):
//
//	corepin workload NAME --size quick|full
const WorkloadCommand = launch.WorkloadArg
