package runner

import (
	"encoding/json"
	"fmt"
	"os"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/workloads"
)

func launchMain() { launch.Main() }

// workloadMain is what "corepin workload NAME --size S" does.
func workloadMain(args []string) int {
	if len(args) != 3 || args[1] != "--size" {
		fmt.Fprintln(os.Stderr, "usage: workload NAME --size S")
		return 2
	}
	w, ok := workloads.ByName(args[0])
	if !ok {
		return 2
	}
	res, err := w.Run(workloads.Size(args[2]))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(res)
	return 0
}
