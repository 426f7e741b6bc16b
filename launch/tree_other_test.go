//go:build !linux

package launch

var treeHelpers = map[string]func() int{}
