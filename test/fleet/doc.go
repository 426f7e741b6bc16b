// Package fleet runs the recipes of docs/fleet.md on real engines.
//
// TestSlurm starts a one-node Slurm cluster on loopback (munged, slurmctld
// and slurmd of Debian's slurm-wlm and munge, with task/affinity and
// task/cgroup), submits the documentation's batch script as written, with
// one node, and checks from Slurm's own records and corepin's that corepin
// ran inside the CPUs Slurm bound the step to, that its per-run cgroups
// nest under the job's, that it refuses a CPU outside the binding, and
// that corepin merge of the folders works. It changes the machine (daemons,
// cgroups) and so runs only when asked:
//
//	COREPIN_SLURM=1 go test ./test/fleet -run TestSlurm -v
//
// as CI does after installing the packages. It stops only the daemons it
// started and removes the cgroups Slurm made that were not there before.
//
// The Kubernetes manifests of the same page are checked against the API's
// types in the module of test/fleet/k8s, kept apart so that corepin's
// build and its go.mod do not carry the Kubernetes API.
package fleet
