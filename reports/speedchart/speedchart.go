// Package speedchart draws a speed test's curves (internal/speedtest) as
// a PNG: the rate of each part of the test against its position in the
// test, write and read, with the point where a cache ran out marked. The
// GUI shows it and `dit speedtest --chart` writes it.
package speedchart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/internal/units"
)

var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

var styles = map[string]struct {
	label string
	col   color.RGBA
	dash  []vg.Length
}{
	"write": {"write", color.RGBA{R: 0xd0, G: 0x60, B: 0x10, A: 0xff}, nil},
	"read":  {"read (past the cache)", color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, []vg.Length{vg.Points(5), vg.Points(2.5)}},
}

// PNG draws r's curves, width x height points at 144 dpi.
func PNG(r *speedtest.Result, width, height vg.Length) ([]byte, error) {
	p := plot.New()
	for _, s := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font, &p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
		*s = font.From(chartFont, vg.Points(9))
	}
	p.Title.TextStyle.Font = font.From(chartFont, vg.Points(11))
	name := r.Label
	if name == "" {
		name = r.Path
	}
	p.Title.Text = fmt.Sprintf("%s: %s in %s I/Os, %d stream(s)", name, units.FormatBytes(r.Size), units.FormatBytes(int64(r.Block)), r.Streams)
	// The legend sits in a band above the curves (the rates axis reaches
	// 40 % past the peak), where no line crosses it.
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font = font.From(chartFont, vg.Points(9))
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{Y: 0xd8}, color.Gray{Y: 0xd8}
	p.Add(grid)

	peak := 0.0
	for _, ph := range []*speedtest.Phase{r.Write, r.Read} {
		if ph != nil {
			for _, pt := range ph.Curve {
				peak = max(peak, pt.Rate)
			}
		}
	}
	div, unit := 1e6, "MB/s"
	if peak >= 2e9 {
		div, unit = 1e9, "GB/s"
	}
	p.Y.Label.Text = unit + " (decimal)"
	p.X.Label.Text = "position in the test (GB)"
	for _, ph := range []*speedtest.Phase{r.Write, r.Read} {
		if ph == nil || len(ph.Curve) == 0 {
			continue
		}
		st := styles[ph.Name]
		xys := make(plotter.XYs, len(ph.Curve))
		for i, pt := range ph.Curve {
			xys[i] = plotter.XY{X: float64(pt.At) / 1e9, Y: pt.Rate / div}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = st.col, vg.Points(1.5), st.dash
		p.Add(l)
		label := fmt.Sprintf("%s: %s", st.label, units.FormatRate(ph.Rate))
		p.Legend.Add(label, l)
		if c := ph.Cliff; c != nil {
			x := float64(c.At) / 1e9
			m, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: peak / div * 1.1}})
			if err != nil {
				return nil, err
			}
			m.Color, m.Width, m.Dashes = st.col, vg.Points(0.8), []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(m)
			p.Legend.Add(fmt.Sprintf("%s cache ran out at %s: %s -> %s", ph.Name, units.FormatBytes(c.At),
				units.FormatRate(c.Before), units.FormatRate(c.After)), m)
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Max(peak/div*1.45, 1)
	p.X.Min = 0
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(144))}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(dc)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("drawing the speed test chart of %s: %w", name, err)
	}
	return b.Bytes(), nil
}
