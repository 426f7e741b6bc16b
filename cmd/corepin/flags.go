package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/topology"
)

// targetFlags are the flags that choose where work runs; every command that
// places work takes the same ones.
type targetFlags struct {
	target string
	cpu    int
	cpus   string
}

func (f *targetFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.target, "target", "prime", "where to run: `prime`, big, little or group:K")
	cmd.Flags().IntVar(&f.cpu, "cpu", -1, "run on this `CPU` (overrides --target)")
	cmd.Flags().StringVar(&f.cpus, "cpus", "", "run on these CPUs, a `list` such as 4-7 (overrides --target)")
	cmd.MarkFlagsMutuallyExclusive("cpu", "cpus")
	_ = cmd.RegisterFlagCompletionFunc("target", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"prime", "big", "little", "group:0", "group:1"}, cobra.ShellCompDirectiveNoFileComp
	})
}

// spec turns the flags into a topology target spec.
func (f *targetFlags) spec() (string, error) {
	switch {
	case f.cpu >= 0:
		return fmt.Sprint(f.cpu), nil
	case f.cpu < -1:
		return "", usageError{fmt.Errorf("--cpu %d: a CPU number is 0 or more", f.cpu)}
	case f.cpus != "":
		s, err := cpuset.Parse(f.cpus)
		if err != nil {
			return "", usageError{fmt.Errorf("--cpus: %w", err)}
		}
		if s.IsEmpty() {
			return "", usageError{fmt.Errorf("--cpus: the list is empty")}
		}
		return s.String(), nil
	}
	return f.target, nil
}

// resolve reads the topology and selects the target.
func (f *targetFlags) resolve(root string) (*topology.Topology, topology.Target, error) {
	spec, err := f.spec()
	if err != nil {
		return nil, topology.Target{}, err
	}
	topo, err := topology.Read(root)
	if err != nil {
		return nil, topology.Target{}, err
	}
	target, err := topo.Select(spec)
	if err != nil {
		return nil, topology.Target{}, usageError{err} // a CPU that cannot be used is a wrong command line
	}
	return topo, target, nil
}
