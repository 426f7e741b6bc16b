package launch

import (
	"os"
	"time"

	"corepin.dev/corepin/internal/kacct"
	"corepin.dev/corepin/results/evidence"
)

// Own is this process as a record of the whole invocation sees it (see
// evidence.OwnProcess), read as its report is written: its start by the
// kernel's taskstats clock where corepin may ask it (the process's fork,
// as SPEC's specinvoke times the shell that starts corepin), else began,
// when its Go program began; its end now.
func Own(began time.Time) *evidence.OwnProcess {
	now := time.Now()
	own := &evidence.OwnProcess{PID: os.Getpid(), StartUnixNS: began.UnixNano(), StartSource: "init", EndUnixNS: now.UnixNano()}
	if elapsed, err := kacct.OwnElapsed(); err == nil && elapsed > 0 {
		own.StartUnixNS, own.StartSource = now.Add(-elapsed).UnixNano(), "taskstats"
	}
	return own
}
