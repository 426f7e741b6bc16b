package remote

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// ADB is an Android device reached with adb. Without a serial, adb picks
// the one device it sees (or $ANDROID_SERIAL) and says so when there are
// none or several.
type ADB struct {
	Serial string
	client
}

func (a *ADB) String() string {
	if a.Serial == "" {
		return "adb"
	}
	return "adb:" + a.Serial
}
func (a *ADB) Kind() string { return "adb" }

// argv is "adb [-s SERIAL]" and the words of one adb command.
func (a *ADB) argv(words ...string) []string {
	v := []string{"adb"}
	if a.Serial != "" {
		v = append(v, "-s", a.Serial)
	}
	return append(v, words...)
}

// Run uses "adb shell COMMAND". The status comes back in the output:
// adb before the shell protocol (Android 7) exits 0 whatever the command
// did.
func (a *ADB) Run(ctx context.Context, command string, stdout, stderr io.Writer) (int, error) {
	return shellRun(ctx, &a.client, a.argv("shell"), command, stdout, stderr, a.String())
}

func (a *ADB) Push(ctx context.Context, local, remote string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return a.copy(ctx, "pushing "+local+" to "+a.String(), a.argv("push", local, remote))
}

func (a *ADB) Pull(ctx context.Context, remote, localDir string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return a.copy(ctx, "pulling "+remote+" from "+a.String(), a.argv("pull", remote, localDir))
}

func (a *ADB) copy(ctx context.Context, what string, argv []string) error {
	var said strings.Builder
	code, err := a.call(ctx, a.timeouts.Copy, argv, nil, &said)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if code != 0 {
		return copyError(what, "adb", code, said.String())
	}
	return nil
}

func (a *ADB) Remove(ctx context.Context, remote string) error { return removeWith(ctx, a, remote) }
func (a *ADB) Close() error                                    { return nil }
