// Package native holds corepin's C library for native code in apps
// (include/, src/; see README.md). Go code uses it only in tests: the
// cgo tests in native/cgotest compile these files, and importing this
// package makes the go command rebuild them when the files change, which
// it does not do for C files included from another folder.
package native

import (
	"embed"
	"io/fs"
)

//go:embed include src
var sources embed.FS

// Sources returns the library's headers (include/) and sources (src/).
func Sources() fs.FS { return sources }
