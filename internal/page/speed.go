package page

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"corepin.dev/corepin/results"
)

// Scatter draws points of two measures against each other, one colour
// per series; the axes span the data, not zero.
type Scatter struct {
	Title          string
	XLabel, YLabel string
	Series         []Line // name, colour and points; Dashed is not used
	Width, Height  int
}

// SVG renders the chart.
func (c Scatter) SVG() template.HTML {
	w, h := width(c.Width), c.Height
	if h == 0 {
		h = 260
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	n := 0
	for _, s := range c.Series {
		for _, p := range s.Points {
			if math.IsNaN(p.X) || math.IsNaN(p.Y) {
				continue
			}
			n++
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	if n == 0 {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	xmin, xmax = pad(xmin, xmax)
	ymin, ymax = pad(ymin, ymax)
	pw, ph := float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	sx := func(x float64) float64 { return marginLeft + (x-xmin)/(xmax-xmin)*pw }
	sy := func(y float64) float64 { return marginTop + ph - (y-ymin)/(ymax-ymin)*ph }

	var b strings.Builder
	begin(&b, w, h, c.Title, marginLeft)
	drawAxes(&b, w, h, sx, sy, xmin, xmax, ymin, ymax, c.XLabel, c.YLabel, n == 0)
	for i, s := range c.Series {
		color := colorOf(s.Color, i)
		for _, p := range s.Points {
			if math.IsNaN(p.X) || math.IsNaN(p.Y) {
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" fill-opacity="0.75"><title>%s: %s, %s</title></circle>`,
				sx(p.X), sy(p.Y), color, esc(s.Name), fmtTick(p.X), fmtTick(p.Y))
		}
	}
	x := float64(w - marginRight)
	for i := len(c.Series) - 1; i >= 0; i-- {
		s := c.Series[i]
		color := colorOf(s.Color, i)
		x -= float64(8*len(s.Name) + 30)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="14" r="4" fill="%s"/><text x="%.1f" y="18" class="legend">%s</text>`, x+7, color, x+16, esc(s.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// pad widens [lo, hi] by 5% each side, and a single value to a span.
func pad(lo, hi float64) (float64, float64) {
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.05, 1e-9)
		return lo - d, hi + d
	}
	d := (hi - lo) * 0.05
	return lo - d, hi + d
}

// speedScatter is a benchmark's run times against the speed probe's
// reading after each run (an older corepin's runs: the mean of its probes
// before and after), with the correlation of the two; nothing when fewer
// than three runs have a reading. The runs called slowed are marked: a
// probe that explained the times would put the slow runs at the left,
// high; runs whose times spread while the probe reads the same say that
// what slowed them was not the core at the probe's moment.
func speedScatter(b results.Benchmark) (template.HTML, string) {
	var steady, slowed, dropped []Point
	var xs, ys []float64
	add := func(r results.RunRecord, counted bool) {
		s, ok := probeReading(r)
		if !ok || r.Warmup || r.Error != "" || !r.Timed() || r.WallS <= 0 {
			return
		}
		p := Point{X: s, Y: r.WallS}
		switch {
		case !counted:
			dropped = append(dropped, p)
			return
		case r.Slowed():
			slowed = append(slowed, p)
		default:
			steady = append(steady, p)
		}
		xs, ys = append(xs, s), append(ys, r.WallS)
	}
	for _, r := range b.Runs {
		add(r, true)
	}
	for _, r := range b.DroppedRuns {
		add(r, false)
	}
	if len(xs) < 3 {
		return "", ""
	}
	unit, scale := "s", 1.0
	if slices.Max(ys) < 1 {
		unit, scale = "ms", 1000
	}
	var series []Line
	for _, s := range []struct {
		name  string
		color string
		pts   []Point
	}{
		{fmt.Sprintf("not slowed (%d)", len(steady)), Color(0), steady},
		{fmt.Sprintf("slowed (%d)", len(slowed)), Color(1), slowed},
		{fmt.Sprintf("dropped and re-run (%d)", len(dropped)), "#57606a", dropped},
	} {
		if len(s.pts) == 0 {
			continue
		}
		pts := make([]Point, len(s.pts))
		for i, p := range s.pts {
			pts[i] = Point{X: p.X, Y: p.Y * scale}
		}
		series = append(series, Line{Name: s.name, Color: s.color, Points: pts})
	}
	chart := Scatter{Title: "run time against the speed probe after it", XLabel: "speed probe after the run, fraction of its best",
		YLabel: "run time / " + unit, Series: series}.SVG()
	note := fmt.Sprintf("Each point is a run: its time against what the speed probe read of the core after it. Over the %d counted runs with a reading, ", len(xs))
	if r, ok := correlation(xs, ys); ok {
		note += fmt.Sprintf("the correlation of time with the probe's reading is %+.2f (Pearson; −1: the probe explains the times, 0: it explains nothing of them).", r)
	} else {
		note += "the reading or the time did not vary, so there is no correlation to give."
	}
	note += " A probe reads the core for a few milliseconds after the run, not during it: a run is called slowed by its own time and what was measured during it, never by the probe alone."
	return chart, note
}

// probeReading is the probe's reading of a run: after it, or the mean of
// an older corepin's before and after.
func probeReading(r results.RunRecord) (float64, bool) {
	switch {
	case r.SpeedBefore != nil && r.SpeedAfter != nil:
		return (*r.SpeedBefore + *r.SpeedAfter) / 2, true
	case r.SpeedAfter != nil:
		return *r.SpeedAfter, true
	case r.SpeedBefore != nil:
		return *r.SpeedBefore, true
	}
	return 0, false
}

// correlation is Pearson's r of x and y; false when either does not vary.
func correlation(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx, my = mx+x[i]/n, my+y[i]/n
	}
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}
