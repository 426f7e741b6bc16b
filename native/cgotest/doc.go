// Package cgotest drives corepin's native library (native/, C11) through
// cgo on the real kernel and holds it to the Go session: for the same
// request the two must write the same report, and the independent
// witnesses (taskset -p, chrt -p, /proc) must agree with both.
//
// The package exists for its tests. It needs cgo and a C compiler; where
// there is none the tests skip and say so, and nothing else in corepin
// depends on cgo.
package cgotest
