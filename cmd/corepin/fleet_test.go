package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// fence is a fenced block of a Markdown file.
type fence struct{ lang, text string }

func fences(t *testing.T, path string) []fence {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	for _, m := range regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```").FindAllStringSubmatch(string(data), -1) {
		out = append(out, fence{m[1], m[2]})
	}
	return out
}

// docWords splits a POSIX shell line into words, with quotes removed and
// globs and variables left as they are; it stops at a redirection, pipe or
// list operator.
func docWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = appendWord(words, cur.String())
				cur.Reset()
				in = false
			}
		case strings.IndexByte(">|;&", c) >= 0 || c == '#' && !in:
			if in {
				words = appendWord(words, cur.String())
			}
			return words
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = appendWord(words, cur.String())
	}
	return words
}

// appendWord adds a word; a glob stands for the several folders it
// matches, two here.
func appendWord(words []string, w string) []string {
	if strings.Contains(w, "*") {
		return append(words, w, w)
	}
	return append(words, w)
}

// corepinLines finds corepin command lines in shell words: after a word
// that is corepin, or inside a quoted word (sh -c '…').
func corepinLines(words []string) [][]string {
	for i, w := range words {
		if w == "corepin" || strings.HasSuffix(w, "/corepin") {
			return [][]string{words[i+1:]}
		}
		if strings.Contains(w, "corepin ") {
			if lines := corepinLines(docWords(w)); lines != nil {
				return lines
			}
		}
	}
	return nil
}

// TestFleetDoc checks docs/fleet.md: its YAML parses into the objects it
// describes (a Guaranteed pod with integer CPUs, the static CPU manager
// with full-pcpus-only), and every corepin command line in it parses.
func TestFleetDoc(t *testing.T) {
	var commands [][]string
	kinds := map[string]bool{}
	blocks := fences(t, "../../docs/fleet.md")
	t.Chdir(t.TempDir())
	os.WriteFile("lab.txt", []byte("adb\n"), 0o644) // for --on @lab.txt
	for _, f := range blocks {
		switch f.lang {
		case "sh":
			for line := range strings.Lines(f.text) {
				if !strings.HasPrefix(strings.TrimSpace(line), "#") {
					commands = append(commands, corepinLines(docWords(strings.TrimSpace(line)))...)
				}
			}
		case "yaml":
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(f.text), &doc); err != nil {
				t.Errorf("YAML does not parse: %v\n%s", err, f.text)
				continue
			}
			kind, _ := doc["kind"].(string)
			kinds[kind] = true
			checkFleetObject(t, kind, doc)
			for _, c := range containers(doc) {
				words := append(strings_(c["command"]), strings_(c["args"])...)
				commands = append(commands, corepinLines(words)...)
			}
		}
	}
	for _, k := range []string{"KubeletConfiguration", "Job", "Pod"} {
		if !kinds[k] {
			t.Errorf("no %s in docs/fleet.md", k)
		}
	}
	merges := 0
	for _, c := range commands {
		if err := check(c); err != nil {
			t.Errorf("corepin %s: %v", strings.Join(c, " "), err)
		}
		if len(c) > 0 && c[0] == "merge" {
			merges++
		}
	}
	if len(commands) < 8 || merges < 3 {
		t.Errorf("%d corepin command lines, %d of them merge: %q", len(commands), merges, commands)
	}
}

func checkFleetObject(t *testing.T, kind string, doc map[string]any) {
	t.Helper()
	switch kind {
	case "KubeletConfiguration":
		opts, _ := doc["cpuManagerPolicyOptions"].(map[string]any)
		if doc["cpuManagerPolicy"] != "static" || opts["full-pcpus-only"] != "true" {
			t.Errorf("kubelet: not the static CPU manager with full-pcpus-only: %v", doc)
		}
	case "Job":
		spec, _ := doc["spec"].(map[string]any)
		if spec["completionMode"] != "Indexed" {
			t.Errorf("the Job is not Indexed: %v", spec)
		}
		for _, c := range containers(doc) {
			res, _ := c["resources"].(map[string]any)
			req, _ := res["requests"].(map[string]any)
			lim, _ := res["limits"].(map[string]any)
			cpu, _ := req["cpu"].(string)
			if len(req) == 0 || !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(cpu) {
				t.Errorf("container %v: CPU request %q is not an integer", c["name"], cpu)
			}
			for k, v := range req {
				if lim[k] != v {
					t.Errorf("container %v: %s request %v and limit %v differ: not a Guaranteed pod", c["name"], k, v, lim[k])
				}
			}
		}
	}
}

// containers are the containers of a Pod or of a Job's pod template.
func containers(doc map[string]any) []map[string]any {
	spec, _ := doc["spec"].(map[string]any)
	if tmpl, ok := spec["template"].(map[string]any); ok {
		spec, _ = tmpl["spec"].(map[string]any)
	}
	list, _ := spec["containers"].([]any)
	var out []map[string]any
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func strings_(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}
