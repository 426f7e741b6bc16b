//go:build linux && cgo

package cgotest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// standInQoS is a stand-in for HarmonyOS's libqos.so with the behaviours
// the research note found in OpenHarmony's sources, chosen by
// FAKE_QOS_MODE: a getter that returns 0 without filling the level (a
// build without QOS_EXT_ENABLE), a setter that changes nothing (the
// service's table maps the level to the default, or the switch
// persist.qosmanager.setQos.on is off), one that renices the thread as a
// vendor kernel does, and one refused (no QoS authority for the uid).
const standInQoS = `
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
static int level = -1;
static int mode(const char *m) { const char *v = getenv("FAKE_QOS_MODE"); return v && !strcmp(v, m); }
int OH_QoS_SetThreadQoS(int l) {
	if (mode("refused")) return -1;
	level = l;
	if (mode("effect")) setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), l >= 3 ? -10 : 0);
	return 0;
}
int OH_QoS_ResetThreadQoS(void) {
	level = -1;
	if (mode("effect")) setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 0);
	return 0;
}
int OH_QoS_GetThreadQoS(int *l) {
	if (mode("unfilled")) return 0;
	if (level < 0) return -1;
	*l = level;
	return 0;
}
`

func buildStandIn(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "qos.c"), filepath.Join(dir, "libqos.so")
	if err := os.WriteFile(src, []byte(standInQoS), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in libqos.so: %v\n%s", err, out)
	}
	return lib
}

// TestHarmonyQoSCaveats runs a QoS request against the stand-in library in
// a helper process (the library is loaded once per process) and checks
// that each caveat is handled and said in the report.
func TestHarmonyQoSCaveats(t *testing.T) {
	requireRoot(t)
	if _, err := os.Stat("/proc/thread-self/sched_qos_ctrl"); err == nil {
		t.Skip("this kernel has a QoS node, which the library prefers to the stand-in")
	}
	lib := buildStandIn(t)
	cpu, _ := target(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"unfilled", "noeffect", "effect", "refused"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "COREPIN_NATIVE_HELPER=c:qos", "COREPIN_NATIVE_CPU="+strconv.Itoa(cpu),
				"COREPIN_LIBQOS="+lib, "FAKE_QOS_MODE="+mode)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			var res struct {
				C   map[string]any
				Err string
			}
			if err := json.Unmarshal(out, &res); err != nil || res.Err != "" {
				t.Fatalf("helper printed %s: %v %s", out, err, res.Err)
			}
			rep := res.C
			q, _ := rep["qos_request"].(map[string]any)
			capture, _ := rep["capture"].(map[string]any)
			restore, _ := rep["restore"].(map[string]any)
			if q["backend"] != "harmonyos-libqos" {
				t.Errorf("backend %v", q["backend"])
			}
			if restore["ok"] != true {
				t.Errorf("restore %v", restore)
			}
			text, _ := json.Marshal(rep)
			switch mode {
			case "unfilled":
				// the old level cannot be read: nothing to restore to, so
				// the level is not changed, and the capture says why
				if !strings.Contains(q["error"].(string), "could not be read; not changed") || capture["complete"] != false ||
					!strings.Contains(string(text), "without filling the level") {
					t.Errorf("unfilled getter: %s", text)
				}
			case "noeffect":
				effects, _ := q["effects"].(map[string]any)
				if q["effective"] != "user-interactive" || effects["changed"] != false || !strings.Contains(q["note"].(string), "left nice and policy") {
					t.Errorf("a level without effect: %s", text)
				}
			case "effect":
				effects, _ := q["effects"].(map[string]any)
				if effects["changed"] != true || effects["nice"] != float64(-10) || q["note"] != nil {
					t.Errorf("a level that renices: %s", text)
				}
				if steps, _ := restore["steps"].([]any); len(steps) == 0 || steps[0].(map[string]any)["what"] != "qos" {
					t.Errorf("QoS is not restored first: %v", restore)
				}
			case "refused":
				if !strings.Contains(q["error"].(string), "OH_QoS_SetThreadQoS(5) failed") || q["effective"] != nil {
					t.Errorf("a refused level: %s", text)
				}
			}
		})
	}
}
