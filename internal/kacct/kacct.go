// Package kacct reads the kernel's own account of processes over netlink:
// the process events connector, which stamps every exec and exit with
// the kernel's clock (Events), and taskstats, the record the kernel makes
// of every task as it exits (Exits, OwnElapsed).
//
// It is its own package because it is its own concept: two netlink
// protocols, their sockets and their parsers, which say nothing of how a
// command is started or contained. launch uses it for the figures that
// only the kernel can give exactly: a command's wall time from its exec
// to its exit, and the high-water mark of its own memory. Every entry
// fails cleanly where the kernel or corepin's privileges give nothing
// (outside the initial PID namespace, without CAP_NET_ADMIN), and the
// caller then falls back to a figure it can vouch for.
package kacct
