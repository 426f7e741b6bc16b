package workloads

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// builtinSHA256 hashes a generated buffer many times over, as cryptographic
// workloads do.
var builtinSHA256 = Workload{
	Name:        "sha256",
	Description: "SHA-256 of 1 GiB of generated data (quick: 128 MiB)",
	Reference:   map[Size]float64{Full: 0.69, Quick: 0.0914},
	run: func(s Size) (Result, error) {
		blocks, want := 1024, sha256Full
		if s == Quick {
			blocks, want = 128, sha256Quick
		}
		buf := make([]byte, 1<<20)
		r := rng(3)
		for i := 0; i < len(buf); i += 8 {
			v := r.next()
			for j := range 8 {
				buf[i+j] = byte(v >> (8 * j))
			}
		}
		h := sha256.New()
		for i := range blocks {
			buf[0] = byte(i) // every MiB differs
			h.Write(buf)
		}
		got := hex.EncodeToString(h.Sum(nil))
		return check(got == want, fmt.Sprintf("%d MiB, digest %s…", blocks, got[:16]), "want digest "+want)
	},
}

const (
	sha256Full  = "95377070b427c75f16c1d701e5de9a3e2543fd003ccda00ac58de017787caedd"
	sha256Quick = "2cef43738211cc3a967c545b8aa2e90132cbaccc54c4b42b97c8916e7be0121d"
)
