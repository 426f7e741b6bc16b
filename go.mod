module corepin.dev/corepin

go 1.26.0

require (
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/vbauerster/mpb/v8 v8.16.2
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d // indirect
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
	github.com/vbauerster/cupwriter v0.0.5 // indirect
)
