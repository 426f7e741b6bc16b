package workloads

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// builtinJSON encodes and decodes a generated set of records: reflection, string
// handling and allocation, as in Geekbench's structured-data work.
var builtinJSON = Workload{
	Name:        "json",
	Description: "encode and decode 40k generated records, twice (quick: 5k)",
	Reference:   map[Size]float64{Full: 0.802, Quick: 0.107},
	run: func(s Size) (Result, error) {
		n := 40_000
		if s == Quick {
			n = 5_000
		}
		recs := records(n)
		var size int
		for range 2 {
			data, err := json.Marshal(recs)
			if err != nil {
				return Result{}, err
			}
			size = len(data)
			var back []record
			if err := json.Unmarshal(data, &back); err != nil {
				return Result{}, err
			}
			if !reflect.DeepEqual(back, recs) {
				return check(false, fmt.Sprintf("%d records, %d bytes", n, size), "decoding did not give back the records")
			}
		}
		return check(true, fmt.Sprintf("%d records, %d bytes, 2 round trips", n, size), "")
	},
}

type record struct {
	ID      int               `json:"id"`
	Name    string            `json:"name"`
	Score   float64           `json:"score"`
	Tags    []string          `json:"tags"`
	Active  bool              `json:"active"`
	Attrs   map[string]string `json:"attrs"`
	Samples []int             `json:"samples"`
}

func records(n int) []record {
	r := rng(99)
	tags := []string{"prime", "big", "little", "exact", "soft", "fifo", "nice", "uclamp"}
	out := make([]record, n)
	for i := range out {
		out[i] = record{
			ID: i, Name: fmt.Sprintf("thread-%d-%x", i, r.next()%0xffff),
			Score:  float64(r.intn(1_000_000)) / 1000,
			Tags:   []string{tags[r.intn(len(tags))], tags[r.intn(len(tags))]},
			Active: r.intn(2) == 0,
			Attrs:  map[string]string{"cpu": fmt.Sprint(r.intn(16)), "policy": tags[r.intn(len(tags))]},
		}
		for range 8 {
			out[i].Samples = append(out[i].Samples, r.intn(1000))
		}
	}
	return out
}
