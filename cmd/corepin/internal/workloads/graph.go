package workloads

import (
	"container/heap"
	"fmt"
)

// builtinGraph is a shortest-path kernel over a sparse random road-like network,
// the pointer-chasing, branchy work of SPEC's 505.mcf.
var builtinGraph = Workload{
	Name:        "graph",
	Description: "Dijkstra from 8 sources on a 200k-node sparse graph (quick: 25k nodes)",
	Reference:   map[Size]float64{Full: 0.969, Quick: 0.0933},
	run: func(s Size) (Result, error) {
		n, want := 200_000, graphChecksumFull
		if s == Quick {
			n, want = 25_000, graphChecksumQuick
		}
		g := newGraph(n)
		var sum uint64
		for src := range 8 {
			for _, d := range g.dijkstra(src * (n / 8)) {
				sum = sum*31 + uint64(d)
			}
		}
		return check(sum == want, fmt.Sprintf("%d nodes, %d edges, distance checksum %d", n, len(g.to), sum),
			fmt.Sprintf("want checksum %d", want))
	},
}

// Integer weights make the checksums exact on every architecture.
const (
	graphChecksumFull  uint64 = 10580503456051175228
	graphChecksumQuick uint64 = 17811519732930226755
)

type graph struct {
	start []int32 // edges of node v are to[start[v]:start[v+1]]
	to    []int32
	w     []int32
}

// newGraph builds a ring (so every node is reachable) plus random short
// and long links, as a road network has.
func newGraph(n int) *graph {
	r := rng(7)
	adj := make([][][2]int32, n)
	add := func(a, b, w int) {
		adj[a] = append(adj[a], [2]int32{int32(b), int32(w)})
		adj[b] = append(adj[b], [2]int32{int32(a), int32(w)})
	}
	for v := range n {
		add(v, (v+1)%n, 1+r.intn(100))
		add(v, (v+1+r.intn(64))%n, 1+r.intn(200))
		if r.intn(8) == 0 {
			add(v, r.intn(n), 500+r.intn(5000))
		}
	}
	g := &graph{start: make([]int32, n+1)}
	for v, es := range adj {
		g.start[v] = int32(len(g.to))
		for _, e := range es {
			g.to = append(g.to, e[0])
			g.w = append(g.w, e[1])
		}
	}
	g.start[n] = int32(len(g.to))
	return g
}

type pqItem struct{ node, dist int32 }
type pq []pqItem

func (q pq) Len() int           { return len(q) }
func (q pq) Less(i, j int) bool { return q[i].dist < q[j].dist }
func (q pq) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)        { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

func (g *graph) dijkstra(src int) []int32 {
	n := len(g.start) - 1
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = 1<<31 - 1
	}
	dist[src] = 0
	q := &pq{{int32(src), 0}}
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		if it.dist > dist[it.node] {
			continue
		}
		for e := g.start[it.node]; e < g.start[it.node+1]; e++ {
			if d := it.dist + g.w[e]; d < dist[g.to[e]] {
				dist[g.to[e]] = d
				heap.Push(q, pqItem{g.to[e], d})
			}
		}
	}
	return dist
}
