// Package buildinfo is what a corepin binary knows of how it was built:
// its module's version, the revision and time of the source, the Go
// version and the platform, from the build information Go embeds.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info is the build of the running binary.
type Info struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read reads the running binary's build; a binary without build
// information is "(devel)".
func Read() Info {
	v := Info{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Module = info.Main.Path
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the build in one line, as corepin version prints it:
// "corepin v1.2.0, 3f2c… (modified), go1.26.0 linux/amd64".
func (v Info) String() string {
	rev := v.Revision
	if rev == "" {
		rev = "unknown revision"
	} else if v.Modified {
		rev += " (modified)"
	}
	return fmt.Sprintf("corepin %s, %s, %s %s", v.Version, rev, v.Go, v.Platform)
}
