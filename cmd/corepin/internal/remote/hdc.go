package remote

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// HDC is a HarmonyOS (OpenHarmony) device reached with hdc, the
// platform's counterpart of adb. Without a key, hdc uses the one device it
// sees.
type HDC struct {
	Key string // the connect key "hdc list targets" prints
	client
}

func (h *HDC) String() string {
	if h.Key == "" {
		return "hdc"
	}
	return "hdc:" + h.Key
}
func (h *HDC) Kind() string { return "hdc" }

// argv is "hdc [-t KEY]" and the words of one hdc command.
func (h *HDC) argv(words ...string) []string {
	v := []string{"hdc"}
	if h.Key != "" {
		v = append(v, "-t", h.Key)
	}
	return append(v, words...)
}

// Run uses "hdc shell COMMAND"; hdc does not pass the command's exit
// status on, so it comes back in the output.
func (h *HDC) Run(ctx context.Context, command string, stdout, stderr io.Writer) (int, error) {
	return shellRun(ctx, &h.client, h.argv("shell"), command, stdout, stderr, h.String())
}

func (h *HDC) Push(ctx context.Context, local, remote string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return h.copy(ctx, "pushing "+local+" to "+h.String(), h.argv("file", "send", local, remote))
}

func (h *HDC) Pull(ctx context.Context, remote, localDir string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return h.copy(ctx, "pulling "+remote+" from "+h.String(), h.argv("file", "recv", remote, localDir))
}

// copy runs a file transfer. hdc may exit 0 after a failed transfer; it
// then says "[Fail]" in its output.
func (h *HDC) copy(ctx context.Context, what string, argv []string) error {
	var said strings.Builder
	code, err := h.call(ctx, h.timeouts.Copy, argv, &said, &said)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if code != 0 || strings.Contains(said.String(), "[Fail]") {
		return copyError(what, "hdc", code, said.String())
	}
	return nil
}

func (h *HDC) Remove(ctx context.Context, remote string) error { return removeWith(ctx, h, remote) }
func (h *HDC) Close() error                                    { return nil }
