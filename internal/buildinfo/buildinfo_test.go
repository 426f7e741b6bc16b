package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	v := Read()
	if v.Go != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH || v.Version == "" {
		t.Errorf("%+v", v)
	}
	if s := (Info{Version: "v1.0.0", Revision: "abc", Modified: true, Go: "go1.26.0", Platform: "linux/arm64"}).String(); s != "corepin v1.0.0, abc (modified), go1.26.0 linux/arm64" {
		t.Errorf("String %q", s)
	}
	if s := (Info{Version: "(devel)"}).String(); !strings.Contains(s, "unknown revision") {
		t.Errorf("no revision: %q", s)
	}
}
