package jobreport

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chartFont is the one typeface of the charts: Liberation Sans, as in the
// PDF (gonum/plot embeds the Liberation fonts).
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// chartStyles are the two lines of a chart, one per phase.
var chartStyles = []struct {
	phase, label string
	col          color.RGBA
	dashes       []vg.Length
}{
	{"copy", "copy (reading the card)", color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, nil},
	{"verify", "verify (reading the copies back)", color.RGBA{R: 0xd0, G: 0x60, B: 0x10, A: 0xff}, []vg.Length{vg.Points(5), vg.Points(2.5)}},
}

// timeSteps are the spacings of the time axis's labelled ticks, in
// seconds, each with the spacing of its minor ticks.
var timeSteps = [][2]float64{
	{1, 0}, {2, 1}, {5, 1}, {10, 5}, {15, 5}, {30, 10}, {60, 15}, {120, 30}, {300, 60}, {600, 120}, {900, 300},
	{1800, 600}, {3600, 900}, {7200, 1800}, {10800, 3600}, {21600, 3600}, {43200, 10800}, {86400, 21600},
}

// timeTicks labels the time axis (seconds since the job started) as
// elapsed time, H:MM or H:MM:SS, at about six round points.
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := timeStep(hi - lo)
	var ticks []plot.Tick
	if step[1] > 0 {
		for v := math.Ceil(lo/step[1]) * step[1]; v <= hi+1e-9; v += step[1] {
			if math.Mod(v, step[0]) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	for v := math.Ceil(lo/step[0]) * step[0]; v <= hi+1e-9; v += step[0] {
		ticks = append(ticks, plot.Tick{Value: v, Label: elapsed(v, step[0] < 60)})
	}
	return ticks
}

// timeStep is the spacing of the labelled ticks (and of the minor ones)
// for a time axis of span seconds: at most seven labels.
func timeStep(span float64) [2]float64 {
	for _, s := range timeSteps {
		if span/s[0] <= 7 {
			return s
		}
	}
	return timeSteps[len(timeSteps)-1]
}

// elapsed renders seconds as H:MM, or H:MM:SS with seconds.
func elapsed(v float64, seconds bool) string {
	s := int64(math.Round(v))
	if seconds {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/3600, s/60%60)
}

// niceStep is a round spacing (1, 2, 2.5 or 5 times a power of ten) that
// cuts span into at most n parts.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// rateTicks labels the rate axis at round values from 0, with a minor
// tick between each.
type rateTicks struct{ step float64 }

func (t rateTicks) Ticks(lo, hi float64) []plot.Tick {
	dec := max(0, -int(math.Floor(math.Log10(t.step)+1e-9)))
	if t.step*math.Pow(10, float64(dec)) != math.Round(t.step*math.Pow(10, float64(dec))) {
		dec++ // 2.5, 0.25
	}
	var ticks []plot.Tick
	for i := 0; ; i++ {
		v := float64(i) * t.step / 2
		if v > hi+1e-9 {
			break
		}
		if v < lo-1e-9 {
			continue
		}
		if i%2 == 1 {
			ticks = append(ticks, plot.Tick{Value: v})
		} else {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
		}
	}
	return ticks
}

// segments splits a phase's samples (sorted by time) where no sample came
// for a while (a pause between runs, or a phase waiting on the other), so
// that no line is drawn across the gap.
func segments(pts []point) [][]point {
	if len(pts) == 0 {
		return nil
	}
	var steps []float64
	for i := 1; i < len(pts); i++ {
		steps = append(steps, pts[i].t-pts[i-1].t)
	}
	gap := 5.0
	if len(steps) > 0 {
		s := append([]float64(nil), steps...)
		sort.Float64s(s)
		gap = max(gap, 3*s[len(s)/2])
	}
	var out [][]point
	start := 0
	for i := 1; i < len(pts); i++ {
		if pts[i].t-pts[i-1].t > gap {
			out = append(out, pts[start:i])
			start = i
		}
	}
	return append(out, pts[start:])
}

// chart draws a card's throughput over time, one line per phase (reading
// the card; reading the copies back), as an SVG (or another format
// gonum/plot writes), over the card's own time. Rates are in one unit,
// MB/s or GB/s (decimal), from 0; time is since the job started, ticked
// H:MM or H:MM:SS at round points; every text is in Liberation Sans and
// the legend sits below the plot, where no line crosses it. Lines break
// where no sample came (a pause). The PDF draws the same chart into its
// page (pdfchart.go).
func chart(c *Card, format string, width, height vg.Length) ([]byte, error) {
	p, legend, err := chartPlot(c)
	if err != nil {
		return nil, err
	}
	cw, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return nil, fmt.Errorf("drawing the chart of %s: %w", c.Label, err)
	}
	dc := draw.New(cw)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	drawChart(p, dc, legend)
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("drawing the chart of %s: %w", c.Label, err)
	}
	return b.Bytes(), nil
}

// chartPlot is card c's chart and its legend's entries.
func chartPlot(c *Card) (*plot.Plot, []legendEntry, error) {
	p := newChartPlot(c.Label)
	byPhase, peak, first, last := chartSeries(c.series)
	unit := pickRateUnit(peak)
	p.Y.Label.Text = unit.Name()
	legend, err := chartLines(p, byPhase, unit)
	if err != nil {
		return nil, nil, err
	}
	if len(legend) == 0 {
		p.Title.Text = c.Label + ": no throughput samples (nothing moved for a whole second)"
		first, last, peak = 0, 60, unit.div
	}
	chartAxes(p, first, last, peak, unit)
	return p, legend, nil
}

// newChartPlot is an empty chart titled for card label: its texts in
// Liberation Sans, the time axis ticked as elapsed time, a light grid.
func newChartPlot(label string) *plot.Plot {
	p := plot.New()
	txt := func(s *text.Style, size float64) {
		s.Font = font.From(chartFont, vg.Points(size))
	}
	txt(&p.Title.TextStyle, 11)
	txt(&p.X.Label.TextStyle, 9.5)
	txt(&p.Y.Label.TextStyle, 9.5)
	txt(&p.X.Tick.Label, 9)
	txt(&p.Y.Tick.Label, 9)
	p.Title.Text = label + ": throughput per second"
	p.Title.Padding = vg.Points(6)
	p.X.Tick.Marker = timeTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xd8}
	grid.Horizontal.Color = color.Gray{Y: 0xd8}
	p.Add(grid)
	return p
}

// chartSeries groups a card's samples by phase, with the highest rate
// and the first and last time of them all.
func chartSeries(series []point) (byPhase map[string][]point, peak, first, last float64) {
	peak, first, last = 0, math.Inf(1), math.Inf(-1)
	byPhase = map[string][]point{}
	for _, pt := range series {
		peak = max(peak, pt.rate)
		first, last = min(first, pt.t), max(last, pt.t)
		byPhase[pt.phase] = append(byPhase[pt.phase], pt)
	}
	return byPhase, peak, first, last
}

// legendEntry is a line of the chart as its legend names it.
type legendEntry struct {
	label string
	line  *plotter.Line
}

// chartLines adds a line per phase to p (broken where no sample came; a
// lone sample drawn as a dot), in unit, and returns the legend's entries
// (a phase without samples has none).
func chartLines(p *plot.Plot, byPhase map[string][]point, unit rateUnit) ([]legendEntry, error) {
	var legend []legendEntry
	for _, s := range chartStyles {
		pts := byPhase[s.phase]
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].t < pts[j].t })
		var shown *plotter.Line
		for _, seg := range segments(pts) {
			xys := make(plotter.XYs, len(seg))
			for i, pt := range seg {
				xys[i] = plotter.XY{X: pt.t, Y: pt.rate / unit.div}
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.Color = s.col
			l.Width = vg.Points(1.5)
			l.Dashes = s.dashes
			p.Add(l)
			if len(xys) == 1 {
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					return nil, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
			if shown == nil {
				shown = l
			}
		}
		if shown != nil {
			legend = append(legend, legendEntry{s.label, shown})
		}
	}
	return legend, nil
}

// chartAxes sets the card's own time, from its first sample to its last
// (time since the job started), and rates from 0 to a round value above
// the peak (bytes per second), in unit.
func chartAxes(p *plot.Plot, first, last, peak float64, unit rateUnit) {
	pad := max(1, (last-first)*0.02)
	p.X.Min, p.X.Max = max(0, first-pad), last+pad
	p.X.Label.Text = "time since the job started (H:MM:SS)"
	if timeStep(p.X.Max - p.X.Min)[0] >= 60 {
		p.X.Label.Text = "time since the job started (H:MM)"
	}
	step := niceStep(peak/unit.div*1.05, 5)
	p.Y.Min, p.Y.Max = 0, math.Ceil(peak/unit.div*1.05/step)*step
	p.Y.Tick.Marker = rateTicks{step}
}

// drawChart draws p on dc, with its legend in one row below the plot,
// aligned with the data area.
func drawChart(p *plot.Plot, dc draw.Canvas, legend []legendEntry) {
	legendStyle := text.Style{Color: color.Black, Font: font.From(chartFont, vg.Points(9)), XAlign: draw.XLeft,
		YAlign: draw.YCenter, Handler: p.TextHandler}
	legendH := vg.Length(0)
	if len(legend) > 0 {
		legendH = legendStyle.Height("Mg") + vg.Points(8)
	}
	area := draw.Crop(dc, vg.Points(2), -vg.Points(8), legendH, -vg.Points(2))
	p.Draw(area)
	if len(legend) == 0 {
		return
	}
	data := p.DataCanvas(area)
	x := data.Min.X
	y := dc.Min.Y + legendH/2
	thumbW, gapW := vg.Points(24), vg.Points(18)
	for _, e := range legend {
		thumb := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y - vg.Points(4)}, Max: vg.Point{X: x + thumbW, Y: y + vg.Points(4)}}}
		e.line.Thumbnail(&thumb)
		x += thumbW + vg.Points(5)
		dc.FillText(legendStyle, vg.Point{X: x, Y: y}, e.label)
		x += legendStyle.Width(e.label) + gapW
	}
}
