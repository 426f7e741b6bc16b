package workloads

import (
	"fmt"
	"math"
)

// builtinLBM is a lattice-Boltzmann D2Q9 fluid stencil with a circular obstacle, the
// kind of work of SPEC's 519.lbm: streaming memory, floating point.
var builtinLBM = Workload{
	Name:        "lbm",
	Description: "lattice-Boltzmann D2Q9 flow past a cylinder, 256x128 for 250 steps (quick: 128x64, 200)",
	Reference:   map[Size]float64{Full: 0.93, Quick: 0.179},
	run: func(s Size) (Result, error) {
		nx, ny, steps := 256, 128, 250
		if s == Quick {
			nx, ny, steps = 128, 64, 200
		}
		mass0, mass, maxU := lbm(nx, ny, steps)
		drift := math.Abs(mass-mass0) / mass0
		summary := fmt.Sprintf("%dx%d, %d steps: mass drift %.2e, max speed %.4f", nx, ny, steps, drift, maxU)
		ok := drift < 1e-9 && maxU > 0.01 && maxU < 0.3 && !math.IsNaN(mass)
		return check(ok, summary, "mass not conserved, or the flow is not physical")
	},
}

// D2Q9 velocities and weights.
var (
	lbmEX = [9]int{0, 1, 0, -1, 0, 1, -1, -1, 1}
	lbmEY = [9]int{0, 0, 1, 0, -1, 1, 1, -1, -1}
	lbmW  = [9]float64{4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36}
	lbmOp = [9]int{0, 3, 4, 1, 2, 7, 8, 5, 6} // opposite directions, for bounce-back
)

// lbm runs a periodic channel driven by an initial shear, with a solid
// cylinder that bounces populations back; mass is conserved exactly by
// both streaming and collision, which is what the check relies on.
func lbm(nx, ny, steps int) (mass0, mass, maxU float64) {
	n := nx * ny
	f := make([]float64, 9*n)
	g := make([]float64, 9*n)
	solid := make([]bool, n)
	cx, cy, r := nx/4, ny/2, ny/8
	for y := range ny {
		for x := range nx {
			solid[y*nx+x] = (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
		}
	}
	const omega = 1.0 / 0.6
	for y := range ny {
		u := 0.08 * math.Sin(2*math.Pi*float64(y)/float64(ny))
		for x := range nx {
			if solid[y*nx+x] {
				continue // solid cells hold no fluid
			}
			for i := range 9 {
				eu := float64(lbmEX[i]) * u
				f[i*n+y*nx+x] = lbmW[i] * (1 + 3*eu + 4.5*eu*eu - 1.5*u*u)
			}
		}
	}
	sum := func(f []float64) float64 {
		s := 0.0
		for _, v := range f {
			s += v
		}
		return s
	}
	mass0 = sum(f)
	for range steps {
		// Stream (periodic), bouncing back from solid cells.
		for y := range ny {
			for x := range nx {
				c := y*nx + x
				if solid[c] {
					continue
				}
				for i := range 9 {
					xs, ys := (x+lbmEX[i]+nx)%nx, (y+lbmEY[i]+ny)%ny
					d := ys*nx + xs
					if solid[d] {
						g[lbmOp[i]*n+c] = f[i*n+c]
					} else {
						g[i*n+d] = f[i*n+c]
					}
				}
			}
		}
		// Collide (BGK) on fluid cells.
		maxU = 0
		for c := range n {
			if solid[c] {
				continue
			}
			rho, ux, uy := 0.0, 0.0, 0.0
			for i := range 9 {
				v := g[i*n+c]
				rho += v
				ux += v * float64(lbmEX[i])
				uy += v * float64(lbmEY[i])
			}
			ux, uy = ux/rho, uy/rho
			usq := ux*ux + uy*uy
			maxU = math.Max(maxU, math.Sqrt(usq))
			for i := range 9 {
				eu := float64(lbmEX[i])*ux + float64(lbmEY[i])*uy
				eq := lbmW[i] * rho * (1 + 3*eu + 4.5*eu*eu - 1.5*usq)
				g[i*n+c] += omega * (eq - g[i*n+c])
			}
		}
		f, g = g, f
		clear(g)
	}
	return mass0, sum(f), maxU
}
