package main

import (
	"fmt"

	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/workloads"
)

// newWorkloadCmd runs one built-in workload and prints its result as JSON;
// corepin run starts it on target as a child process for isolation.
func newWorkloadCmd() *command {
	var size string
	cmd := &command{
		use:    runner.WorkloadCommand + " NAME",
		short:  "Run one built-in workload and print its result as JSON",
		hidden: true,
		args: func(args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("want one workload name")}
			}
			return nil
		},
		run: func(in *invocation, args []string) error {
			w, ok := workloads.ByName(args[0])
			if !ok {
				return usageError{fmt.Errorf("no built-in workload %q", args[0])}
			}
			res, err := w.Run(workloads.Size(size))
			if err != nil {
				return err
			}
			return writeJSON(in.stdout, res)
		},
	}
	cmd.flags().StringVar(&size, "size", "full", "full or quick")
	return cmd
}
