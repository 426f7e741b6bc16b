package page

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"corepin.dev/corepin/internal/termsafe"
)

// The charts are inline SVG written here rather than by a plotting library:
// the page must stand alone (no scripts, no fonts, no network), read well
// at 1280 px and in print, and corepin's cold build must stay quick.

// Point is one sample; a NaN Y is a gap in the line.
type Point struct{ X, Y float64 }

// Line is one series of a line chart.
type Line struct {
	Name   string
	Color  string
	Dashed bool
	Points []Point
}

// LineChart draws lines over a time axis.
type LineChart struct {
	Title          string
	XLabel, YLabel string
	YMin, YMax     float64 // the Y range; YMax 0 means "from the data"
	XMax           float64 // 0 means "from the data"
	Lines          []Line
	// GapAfter breaks a line where two points are further apart in X
	// (a run boundary, a sampling gap): nothing is drawn across it.
	GapAfter float64
	Width    int
	Height   int
}

// palette of the series: distinct in colour and in print.
var palette = [...]string{"#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a"}

// Color is the colour of series i, from a fixed palette that repeats.
func Color(i int) string { return palette[i%len(palette)] }

// colorOf is the colour a series chose, or else series i's.
func colorOf(chosen string, i int) string {
	if chosen != "" {
		return chosen
	}
	return Color(i)
}

const (
	marginLeft   = 62
	marginRight  = 16
	marginTop    = 28
	marginBottom = 42
)

// esc is a chart's text, shown safe (a label may be a name from a results
// folder) and escaped for HTML.
func esc(s string) string { return html.EscapeString(termsafe.Text(s)) }

// width is a chart's width in SVG units, 1100 unless set.
func width(w int) int {
	if w == 0 {
		return 1100
	}
	return w
}

// begin opens a chart's <svg> element and writes its title at x.
func begin(b *strings.Builder, w, h int, title string, x int) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, w, h, esc(title))
	fmt.Fprintf(b, `<text x="%d" y="18" class="ct">%s</text>`, x, esc(title))
}

// SVG renders the chart.
func (c LineChart) SVG() template.HTML {
	w, h := width(c.Width), c.Height
	if h == 0 {
		h = 220
	}
	xmax, ymin, ymax := c.XMax, c.YMin, c.YMax
	n := 0
	for _, l := range c.Lines {
		for _, p := range l.Points {
			n++
			if c.XMax == 0 {
				xmax = math.Max(xmax, p.X)
			}
			if c.YMax == 0 && !math.IsNaN(p.Y) {
				ymax = math.Max(ymax, p.Y)
			}
		}
	}
	if xmax <= 0 {
		xmax = 1
	}
	if ymax <= ymin {
		ymax = ymin + 1
	}
	if c.YMax == 0 {
		ymax *= 1.08
	}
	pw, ph := float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	sx := func(x float64) float64 { return marginLeft + x/xmax*pw }
	sy := func(y float64) float64 { return marginTop + ph - (y-ymin)/(ymax-ymin)*ph }

	var b strings.Builder
	begin(&b, w, h, c.Title, marginLeft)
	// Grid, ticks, frame and labels.
	drawAxes(&b, w, h, sx, sy, 0, xmax, ymin, ymax, c.XLabel, c.YLabel, n == 0)
	// Lines, broken at gaps; a lone point is drawn as a dot.
	for i, l := range c.Lines {
		color := colorOf(l.Color, i)
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		for _, seg := range segments(l.Points, c.GapAfter) {
			if len(seg) == 1 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s</title></circle>`, sx(seg[0].X), sy(clamp(seg[0].Y, ymin, ymax)), color, esc(l.Name))
				continue
			}
			var d strings.Builder
			for j, p := range seg {
				cmd := "L"
				if j == 0 {
					cmd = "M"
				}
				fmt.Fprintf(&d, "%s%.1f %.1f", cmd, sx(p.X), sy(clamp(p.Y, ymin, ymax)))
			}
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s><title>%s</title></path>`, d.String(), color, dash, esc(l.Name))
		}
	}
	// Legend.
	x := float64(w - marginRight)
	for i := len(c.Lines) - 1; i >= 0; i-- {
		l := c.Lines[i]
		color := colorOf(l.Color, i)
		x -= float64(8*len(l.Name) + 34)
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="14" y2="14" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="18" class="legend">%s</text>`, x, x+18, color, dash, x+22, esc(l.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// segments splits points at NaNs and at X gaps larger than gap.
func segments(pts []Point, gap float64) [][]Point {
	var out [][]Point
	var cur []Point
	for i, p := range pts {
		broken := math.IsNaN(p.Y) || (gap > 0 && i > 0 && p.X-pts[i-1].X > gap)
		if broken && len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
		if !math.IsNaN(p.Y) {
			cur = append(cur, p)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// ticks returns about n round tick values from lo to hi.
func ticks(lo, hi float64, n int) []float64 {
	span := hi - lo
	if span <= 0 || n <= 0 {
		return []float64{lo}
	}
	step := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if span/(step*m) <= float64(n) {
			step *= m
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func fmtTick(v float64) string {
	if math.Abs(v-math.Round(v)) < 1e-9 {
		return fmt.Sprintf("%.0f", v)
	}
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// Heatmap shows a value (0-100) per row and time bin.
type Heatmap struct {
	Title  string
	Rows   []string    // labels, top to bottom
	Cells  [][]float64 // [row][bin]; NaN is no data
	BinS   float64     // width of a bin in seconds
	XLabel string
	Width  int
}

// SVG renders the heatmap.
func (m Heatmap) SVG() template.HTML {
	w := width(m.Width)
	rowH := 16.0
	h := marginTop + int(rowH*float64(len(m.Rows))) + marginBottom
	bins := 0
	for _, r := range m.Cells {
		bins = max(bins, len(r))
	}
	pw := float64(w - marginLeft - marginRight)
	var b strings.Builder
	begin(&b, w, h, m.Title, marginLeft)
	if bins == 0 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="empty" text-anchor="middle">no samples</text>`, marginLeft+pw/2, marginTop+12)
	}
	cw := pw / math.Max(1, float64(bins))
	for r, label := range m.Rows {
		y := float64(marginTop) + float64(r)*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`, marginLeft-6, y+rowH-4, esc(label))
		for i, v := range m.Cells[r] {
			if math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s %.0f%%</title></rect>`,
				float64(marginLeft)+float64(i)*cw, y, cw+0.3, rowH-1, heat(v), esc(label), v)
		}
	}
	for _, x := range ticks(0, float64(bins)*m.BinS, 8) {
		px := float64(marginLeft) + x/m.BinS*cw
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`, px, h-marginBottom+16, fmtTick(x))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="axis" text-anchor="middle">%s</text>`, float64(marginLeft)+pw/2, h-6, esc(m.XLabel))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// heat maps 0-100% to a light-to-dark blue.
func heat(v float64) string {
	t := clamp(v, 0, 100) / 100
	r := int(240 - t*(240-8))
	g := int(244 - t*(244-48))
	bl := int(248 - t*(248-107))
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

// Bar is one bar of a bar chart.
type Bar struct {
	Label string
	Value float64
	Color string
	Note  string // printed after the value
}

// BarChart draws horizontal bars.
type BarChart struct {
	Title string
	Unit  string
	Bars  []Bar
	Width int
}

// SVG renders the bar chart.
func (c BarChart) SVG() template.HTML {
	w := width(c.Width)
	left := 230.0
	barH, gap := 22.0, 8.0
	h := marginTop + int(float64(len(c.Bars))*(barH+gap)) + 30
	maxV := 0.0
	for _, b := range c.Bars {
		maxV = math.Max(maxV, b.Value)
	}
	if maxV <= 0 {
		maxV = 1
	}
	pw := float64(w) - left - 150
	var b strings.Builder
	begin(&b, w, h, c.Title, 10)
	for i, bar := range c.Bars {
		y := float64(marginTop) + float64(i)*(barH+gap)
		color := colorOf(bar.Color, i)
		bw := bar.Value / maxV * pw
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%s</text>`, left-8, y+barH-6, esc(bar.Label))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, left, y, math.Max(bw, 1), barH, color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="tick">%s %s %s</text>`, left+bw+6, y+barH-6, fmtValue(bar.Value), esc(c.Unit), esc(bar.Note))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func fmtValue(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Span is one bar on a timeline row.
type Span struct {
	Row        int
	Start, End float64
	Color      string
	Title      string
}

// Timeline draws spans on rows over time (threads × time).
type Timeline struct {
	Title  string
	Rows   []string
	Spans  []Span
	XLabel string
	Legend []Line // name and colour only
	Width  int
}

// SVG renders the timeline.
func (t Timeline) SVG() template.HTML {
	w := width(t.Width)
	rowH := 18.0
	h := marginTop + int(rowH*float64(len(t.Rows))) + marginBottom
	xmax := 0.0
	for _, s := range t.Spans {
		xmax = math.Max(xmax, s.End)
	}
	if xmax <= 0 {
		xmax = 1
	}
	pw := float64(w - marginLeft - marginRight)
	sx := func(x float64) float64 { return float64(marginLeft) + x/xmax*pw }
	var b strings.Builder
	begin(&b, w, h, t.Title, marginLeft)
	for i, r := range t.Rows {
		y := float64(marginTop) + float64(i)*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`, marginLeft-6, y+rowH-5, esc(r))
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, marginLeft, w-marginRight, y+rowH, y+rowH)
	}
	for _, s := range t.Spans {
		y := float64(marginTop) + float64(s.Row)*rowH
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s</title></rect>`,
			sx(s.Start), y+2, math.Max(sx(s.End)-sx(s.Start), 0.5), rowH-4, s.Color, esc(s.Title))
	}
	for _, x := range ticks(0, xmax, 8) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`, sx(x), h-marginBottom+16, fmtTick(x))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="axis" text-anchor="middle">%s</text>`, float64(marginLeft)+pw/2, h-6, esc(t.XLabel))
	x := float64(w - marginRight)
	for i := len(t.Legend) - 1; i >= 0; i-- {
		l := t.Legend[i]
		x -= float64(8*len(l.Name) + 30)
		fmt.Fprintf(&b, `<rect x="%.1f" y="8" width="14" height="10" fill="%s"/><text x="%.1f" y="18" class="legend">%s</text>`, x, l.Color, x+18, esc(l.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// drawAxes draws what every chart of points has around its data: the grid
// and ticks of both axes, the frame, the axis labels and, for a chart
// without data, "no samples". sx and sy map data to the picture.
func drawAxes(b *strings.Builder, w, h int, sx, sy func(float64) float64, xmin, xmax, ymin, ymax float64, xlabel, ylabel string, empty bool) {
	pw, ph := float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	for _, y := range ticks(ymin, ymax, 4) {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, marginLeft, w-marginRight, sy(y), sy(y))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`, marginLeft-6, sy(y)+4, fmtTick(y))
	}
	for _, x := range ticks(xmin, xmax, 8) {
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" class="tickmark"/>`, sx(x), sx(x), h-marginBottom, float64(h-marginBottom)+4)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`, sx(x), h-marginBottom+16, fmtTick(x))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" class="frame"/>`, marginLeft, marginTop, pw, ph)
	fmt.Fprintf(b, `<text x="%.1f" y="%d" class="axis" text-anchor="middle">%s</text>`, marginLeft+pw/2, h-6, esc(xlabel))
	fmt.Fprintf(b, `<text transform="translate(14 %.1f) rotate(-90)" class="axis" text-anchor="middle">%s</text>`, marginTop+ph/2, esc(ylabel))
	if empty {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="empty" text-anchor="middle">no samples</text>`, marginLeft+pw/2, marginTop+ph/2)
	}
}
