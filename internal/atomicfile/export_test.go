package atomicfile

import (
	"io"
	"os"
)

// WriteFlushing is Write with flush in place of the flush to the disk of
// the file and of its folder, so that a test can watch and fail them.
func WriteFlushing(flush func(*os.File) error, path string, write func(io.Writer) error) error {
	return writeFiles(flush, []File{{path, write}})
}

// WriteFilesFlushing is WriteFiles with flush in place of the flushes.
func WriteFilesFlushing(flush func(*os.File) error, files ...File) error {
	return writeFiles(flush, files)
}
