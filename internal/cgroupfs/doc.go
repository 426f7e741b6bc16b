// Package cgroupfs is corepin's one layer over the kernel's cgroup file
// systems, v1 and v2: where the hierarchies are mounted (the one reader
// of /proc/self/mountinfo), which cgroup a process is in, the names of
// corepin's own cgroups, the files that create, confine, account,
// freeze, kill and remove one, and the judgement of a cgroup left by a
// corepin that is gone. Its readers take an fsroot.Root, so that what it
// says of a machine can be tested on a fixture tree.
package cgroupfs
