//go:build !linux

package watch

func helperChild(string) {}
