//go:build !linux

package main

import "io"

// readerGone is known only on Linux; elsewhere the reader is never gone.
func readerGone(io.Writer) bool { return false }
