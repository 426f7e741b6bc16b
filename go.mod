module corepin.dev/corepin

go 1.26.0

require (
	github.com/cilium/ebpf v0.22.0
	github.com/pelletier/go-toml/v2 v2.4.3
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
