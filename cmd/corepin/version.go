package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"corepin.dev/corepin/internal/cli"
)

// versionInfo is what "corepin version" prints, from the build info.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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

func newVersionCmd() *cli.Command {
	var asJSON bool
	cmd := &cli.Command{
		Use:   "version",
		Short: "Print corepin's version and the revision it was built from",
		Example: `  corepin version
  corepin version --json`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			v := buildVersion()
			if asJSON {
				return writeJSON(in.Stdout, v)
			}
			rev := v.Revision
			if rev == "" {
				rev = "unknown revision"
			} else if v.Modified {
				rev += " (modified)"
			}
			fmt.Fprintf(in.Stdout, "corepin %s, %s, %s %s\n", v.Version, rev, v.Go, v.Platform)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
