// Package procfs reads the kernel's process and CPU files under /proc
// through an fsroot.Root, so that what corepin says of them can be tested
// on fixture trees. It is the one parser of each file it holds.
package procfs
