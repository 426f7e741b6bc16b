package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/workloads"
)

// newWorkloadCmd runs one built-in workload and prints its result as JSON;
// corepin run starts it on target as a child process for isolation.
func newWorkloadCmd() *cobra.Command {
	var size string
	cmd := &cobra.Command{
		Use:    runner.WorkloadCommand + " NAME",
		Short:  "Run one built-in workload and print its result as JSON",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("want one workload name")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w, ok := workloads.ByName(args[0])
			if !ok {
				return usageError{fmt.Errorf("no built-in workload %q", args[0])}
			}
			res, err := w.Run(workloads.Size(size))
			if err != nil {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), res)
		},
	}
	cmd.Flags().StringVar(&size, "size", "full", "full or quick")
	return cmd
}
