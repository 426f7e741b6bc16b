package workloads

import "fmt"

// builtinFib is the QoS experiment's key-thread work, as in the HarmonyOS
// high-load example (docs/experiments.md): naive recursive Fibonacci, all
// calls and branches.
var builtinFib = Workload{
	Name:        "fib",
	Description: "recursive Fibonacci, fib(40) (quick: fib(32))",
	Reference:   map[Size]float64{Full: 0.607, Quick: 0.013},
	run: func(s Size) (Result, error) {
		n, want := 40, uint64(102334155)
		if s == Quick {
			n, want = 32, 2178309
		}
		got := fib(n)
		return check(got == want, fmt.Sprintf("fib(%d) = %d", n, got), fmt.Sprintf("want %d", want))
	},
}

func fib(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fib(n-1) + fib(n-2)
}
