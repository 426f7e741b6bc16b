package standin

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// runcpu's interpolation as the stand-in does it: ${…} and $[…] are its
// variables, \$ a $ for the shell, $BIND and $SPECCOPYNUM left to
// specinvoke, a name runcpu does not have left to the shell.
func TestInterpolate(t *testing.T) {
	vars := map[string]string{"top": "/spec", "lognum": "042", "benchmark": "505.mcf_r", "BIND": "no", "iter": "2"}
	for _, c := range []struct{ in, want string }{
		{"$[top]/result/corepin.${lognum}", "/spec/result/corepin.042"},
		{"${benchmark}.i${iter}.c$SPECCOPYNUM", "505.mcf_r.i2.c$SPECCOPYNUM"},
		{"--cpu $BIND", "--cpu $BIND"},
		{`echo \$\$ $HOME $lognum`, "echo $$ $HOME 042"},
	} {
		got, err := interpolate(c.in, vars)
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"${nothing}", "${unclosed"} {
		if _, err := interpolate(bad, vars); err == nil {
			t.Errorf("%q interpolated", bad)
		}
	}
}

func TestReadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cfg")
	os.WriteFile(path, []byte("# a config\nout = raw\ndefault:\n   command_add_redirect = yes\n   bind = 1 0\n   submit1 = b\n   submit0 = a\n"), 0o644)
	c, err := readConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if !c.addRedirect || c.submitForSpeed || !slices.Equal(c.bind, []string{"1", "0"}) || !slices.Equal(c.submit, []string{"a", "b"}) {
		t.Errorf("read %+v", c)
	}
	os.WriteFile(path, []byte("not a setting\n"), 0o644)
	if _, err := readConfig(path); err == nil {
		t.Error("a line that is no setting was read")
	}
}
