package page

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"corepin.dev/corepin/results"
)

// browserLimit is how long a test gives Chromium: an emulated guest of
// test/machines runs it many times slower than this machine.
func browserLimit() time.Duration {
	if os.Getenv("MACHINE_SHAPE") != "" {
		return 6 * time.Minute
	}
	return 90 * time.Second
}

// chromium finds Debian's headless browser; .ci/run installs it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("needs Chromium (Debian package chromium) for the browser test")
	return ""
}

// TestPageInChromium opens the page in headless Chromium with every
// request sent to a local proxy that counts them: the page must load with
// none, show its charts, and show the script-tag name as text.
func TestPageInChromium(t *testing.T) {
	browser := chromium(t)
	dir := filepath.Join(t.TempDir(), "small")
	run := smallRun(t)
	writeSmall(t, dir, run)
	page, err := WriteFile(dir, mustLoad(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Chromium makes requests of its own even for about:blank (update,
	// time and account checks to its vendor's hosts); those are recorded
	// apart. Any other request would have come from the page.
	var mu sync.Mutex
	var fromPage []string
	browserOwn := regexp.MustCompile(`^(CONNECT |[A-Z]+ http://)[a-z0-9.-]*(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)[:/ ]`)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 512)
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, _ := c.Read(buf)
			line, _, _ := strings.Cut(string(buf[:n]), "\r\n")
			if !browserOwn.MatchString(line) {
				mu.Lock()
				fromPage = append(fromPage, line)
				mu.Unlock()
			}
			c.Close()
		}
	}()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir(),
		"--proxy-server=http://" + ln.Addr().String(), "--proxy-bypass-list=<-loopback>",
		"--hide-scrollbars", "--window-size=1280,2000"}
	ctx, cancel := context.WithTimeout(context.Background(), browserLimit())
	defer cancel()
	dom, err := exec.CommandContext(ctx, browser, append(args, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	if out, err := exec.CommandContext(ctx, browser, append(args, "--screenshot="+shot, "file://"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Errorf("screenshot: %v", err)
	}
	text := string(dom)
	if strings.Contains(text, "<script") {
		t.Error("the DOM holds a script element: the benchmark name was not escaped")
	}
	if !strings.Contains(text, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the script-tag name does not appear as text")
	}
	paths := regexp.MustCompile(`<path d="M[0-9.]+ [0-9.]+L`).FindAllString(text, -1)
	charts := strings.Count(text, `<svg class="chart"`)
	if charts < 4 || len(paths) < 2 {
		t.Errorf("%d charts with %d drawn lines", charts, len(paths))
	}
	if !bytes.Contains(dom, []byte("maximum 2.75 GHz")) {
		t.Error("the dashed maximum is missing")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fromPage) != 0 {
		t.Errorf("the page made network requests: %q", fromPage)
	}
}

func mustLoad(t *testing.T, dir string) *results.Run {
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
