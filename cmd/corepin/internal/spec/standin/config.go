package standin

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// config is what the stand-in reads of a runcpu config file: lines
// "key = value" in sections ("default:"), comments from "#". Every
// section applies to every benchmark here.
type config struct {
	addRedirect, submitForSpeed bool
	bind                        []string
	submit                      []string // submit0, submit1, … in order
}

var (
	setting = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*?)(\d*)\s*=\s*(.*?)\s*$`)
	section = regexp.MustCompile(`^\s*[A-Za-z0-9_.,=:-]*:\s*$`)
)

func readConfig(path string) (*config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &config{}
	submits := map[int]string{}
	for n, line := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") || section.MatchString(line) {
			continue
		}
		m := setting.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a setting: %q", path, n+1, line)
		}
		key, index, value := m[1], m[2], m[3]
		switch key {
		case "command_add_redirect":
			c.addRedirect = yes(value)
		case "use_submit_for_speed":
			c.submitForSpeed = yes(value)
		case "bind":
			c.bind = strings.Fields(value)
		case "submit":
			i, _ := strconv.Atoi(index)
			submits[i] = value
		}
	}
	keys := make([]int, 0, len(submits))
	for k := range submits {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		c.submit = append(c.submit, submits[k])
	}
	return c, nil
}

func yes(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "1", "true", "on":
		return true
	}
	return false
}

// interpolate expands runcpu's variables in s as runcpu does when it
// makes a command: \$ is a $ left for the shell; $[name] and ${name} are
// the variable's value; $name is too, but for $BIND and $SPECCOPYNUM,
// which specinvoke substitutes per copy, and names runcpu does not have,
// which are left to the shell.
func interpolate(s string, vars map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i] == '$' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '['):
			end := strings.IndexByte(s[i:], map[byte]byte{'{': '}', '[': ']'}[s[i+1]])
			if end < 0 {
				return "", fmt.Errorf("%q: an unclosed variable", s)
			}
			name := s[i+2 : i+end]
			v, ok := vars[name]
			if !ok {
				return "", fmt.Errorf("%q: runcpu has no variable %s", s, name)
			}
			b.WriteString(v)
			i += end
		case s[i] == '$':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name := s[i+1 : j]
			if v, ok := vars[name]; ok && name != "BIND" && name != "SPECCOPYNUM" {
				b.WriteString(v)
			} else {
				b.WriteString(s[i:j])
			}
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
