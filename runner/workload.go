package runner

// WorkloadCommand is the (hidden) corepin subcommand that runs one built-in
// workload in a process of its own and prints its result as JSON:
//
//	corepin workload NAME --size quick|full
const WorkloadCommand = "workload"
