// Package cgroupfs is corepin's one layer over the kernel's cgroup file
// systems, v1 and v2, in the shape of runc's cgroups/fs and fs2: the
// hierarchies found once (Find: the one reader of /proc/self/mountinfo,
// and of /proc/PID/cgroup), every cgroup corepin makes made by Make with
// its limits (CPUs, memory nodes, weight, CFS quota) read back, as a
// Group that takes a process or a thread, lists, freezes, kills, reads
// its CPU account per CPU and removes itself; one naming scheme for a
// run's, a bandwidth limit's and a shield's cgroups, which carries its
// maker's mark (PID, start time, PID namespace), and the one test of a
// cgroup left by a corepin that is gone (OwnerGone). Its readers take an
// fsroot.Root, so that what it says of a machine can be tested on a
// fixture tree; launch's tree, the shield, the bandwidth limiter, the
// probes and the topology are its clients.
package cgroupfs
