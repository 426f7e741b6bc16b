package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// deviceTree returns an arm64 device tree for shape s: the one qemu's virt
// board generates for these arguments, with capacity-dmips-mhz on every
// CPU and a cpu-map of the shape's clusters, so the guest kernel sees
// asymmetric capacities (cpu_capacity) and clusters (cluster_cpus) as on a
// big.LITTLE phone.
func deviceTree(ctx context.Context, cache string, s shape, qemu []string) (string, error) {
	if len(s.capacities) != s.cpus() {
		return "", fmt.Errorf("shape %s: %d capacities for %d CPUs", s.name, len(s.capacities), s.cpus())
	}
	if _, err := exec.LookPath("dtc"); err != nil {
		return "", fmt.Errorf("arm64 shapes need dtc (apt-get install device-tree-compiler): %w", err)
	}
	key := sha256.Sum256([]byte(fmt.Sprint(s.capacities, s.clusters, s.smp)))
	dir := filepath.Join(cache, "dtb")
	out := filepath.Join(dir, fmt.Sprintf("%s-%x.dtb", s.name, key[:6]))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Ask qemu for its own tree: the same machine, CPUs and devices.
	raw := out + ".virt"
	dump := make([]string, 0, len(qemu)+2)
	for i := 0; i < len(qemu); i++ {
		if qemu[i] == "-machine" && i+1 < len(qemu) {
			dump = append(dump, "-machine", qemu[i+1]+",dumpdtb="+raw)
			i++
			continue
		}
		dump = append(dump, qemu[i])
	}
	if err := runQuiet(ctx, "qemu-system-aarch64", dump...); err != nil {
		return "", fmt.Errorf("dumping the virt board's device tree: %w", err)
	}
	defer os.Remove(raw)
	dts, err := exec.CommandContext(ctx, "dtc", "-q", "-I", "dtb", "-O", "dts", raw).Output()
	if err != nil {
		return "", fmt.Errorf("decompiling %s: %w", raw, err)
	}
	edited, err := withCapacities(string(dts), s.capacities, s.clusters)
	if err != nil {
		return "", err
	}
	src := out + ".dts"
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		return "", err
	}
	if err := runQuiet(ctx, "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", out+".tmp", src); err != nil {
		return "", fmt.Errorf("compiling %s: %w", src, err)
	}
	return out, os.Rename(out+".tmp", out)
}

var cpuNode = regexp.MustCompile(`(?m)^([ \t]*)cpu@([0-9a-f]+) \{\n`)

// withCapacities labels each cpu@N node, gives it its capacity, and
// replaces the board's cpu-map (if any) with one cluster per group.
func withCapacities(dts string, capacities []int, clusters [][]int) (string, error) {
	dts = removeNode(dts, "cpu-map")
	n := 0
	var bad error
	dts = cpuNode.ReplaceAllStringFunc(dts, func(m string) string {
		g := cpuNode.FindStringSubmatch(m)
		var id int
		fmt.Sscanf(g[2], "%x", &id)
		if id >= len(capacities) {
			bad = fmt.Errorf("device tree has cpu@%s beyond the shape's %d CPUs", g[2], len(capacities))
			return m
		}
		n++
		return fmt.Sprintf("%scpu%d: cpu@%s {\n%s\tcapacity-dmips-mhz = <%d>;\n", g[1], id, g[2], g[1], capacities[id])
	})
	if bad != nil {
		return "", bad
	}
	if n != len(capacities) {
		return "", fmt.Errorf("device tree has %d cpu nodes, the shape %d CPUs", n, len(capacities))
	}
	var m strings.Builder
	m.WriteString("\t\tcpu-map {\n\t\t\tsocket0 {\n")
	for k, cl := range clusters {
		fmt.Fprintf(&m, "\t\t\t\tcluster%d {\n", k)
		for j, c := range cl {
			fmt.Fprintf(&m, "\t\t\t\t\tcore%d {\n\t\t\t\t\t\tcpu = <&cpu%d>;\n\t\t\t\t\t};\n", j, c)
		}
		m.WriteString("\t\t\t\t};\n")
	}
	m.WriteString("\t\t\t};\n\t\t};\n")
	// Subnodes follow properties: the map goes last in the cpus node.
	start, end := nodeSpan(dts, "cpus")
	if start < 0 {
		return "", fmt.Errorf("device tree has no cpus node")
	}
	at := strings.LastIndex(dts[:end], "\t};") // the cpus node's own closing line
	if at < start {
		return "", fmt.Errorf("device tree's cpus node is not as expected")
	}
	at = strings.LastIndex(dts[:at], "\n") + 1
	return dts[:at] + m.String() + dts[at:], nil
}

// removeNode deletes the first node called name (with its braces).
func removeNode(dts, name string) string {
	start, end := nodeSpan(dts, name)
	if start < 0 {
		return dts
	}
	return dts[:start] + dts[end:]
}

// nodeSpan returns where the first node called name starts (its line) and
// ends (after its "};" line), or -1, -1.
func nodeSpan(dts, name string) (start, end int) {
	i := strings.Index(dts, "\t"+name+" {\n")
	if i < 0 {
		return -1, -1
	}
	start = strings.LastIndex(dts[:i], "\n") + 1
	depth := 0
	for j := i; j < len(dts); j++ {
		switch dts[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = j + 1
				if end < len(dts) && dts[end] == ';' {
					end++
				}
				if end < len(dts) && dts[end] == '\n' {
					end++
				}
				return start, end
			}
		}
	}
	return -1, -1
}
