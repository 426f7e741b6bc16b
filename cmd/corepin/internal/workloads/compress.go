package workloads

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strings"
)

// builtinCompress is a file-compression round trip (Geekbench's File Compression):
// DEFLATE a generated text and inflate it back.
var builtinCompress = Workload{
	Name:        "compress",
	Description: "DEFLATE round trip of 16 MiB of generated text (quick: 2 MiB)",
	Reference:   map[Size]float64{Full: 1.09, Quick: 0.148},
	run: func(s Size) (Result, error) {
		size := 16 << 20
		if s == Quick {
			size = 2 << 20
		}
		text := generateText(size)
		var packed bytes.Buffer
		zw, err := flate.NewWriter(&packed, 6)
		if err != nil {
			return Result{}, err
		}
		zw.Write(text)
		zw.Close()
		unpacked, err := io.ReadAll(flate.NewReader(bytes.NewReader(packed.Bytes())))
		if err != nil {
			return Result{}, fmt.Errorf("inflating: %w", err)
		}
		ratio := float64(len(text)) / float64(packed.Len())
		summary := fmt.Sprintf("%d bytes -> %d bytes (%.2fx) -> %d bytes", len(text), packed.Len(), ratio, len(unpacked))
		return check(bytes.Equal(unpacked, text) && ratio > 2, summary, "the round trip did not give back the input")
	},
}

func generateText(size int) []byte {
	words := strings.Fields("core thread scheduler affinity frequency cluster cache benchmark latency " +
		"throughput kernel policy nice clamp migration residency telemetry sample restore verify")
	r := rng(42)
	var b bytes.Buffer
	b.Grow(size + 16)
	for b.Len() < size {
		b.WriteString(words[r.intn(len(words))])
		if r.intn(12) == 0 {
			b.WriteString(fmt.Sprintf(" %d.\n", r.intn(100000)))
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:size]
}
