package jobreport

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart draws a card's throughput over time, one line per phase (reading
// the card; reading the copies back), as "png" or "svg". Rates are in MB/s
// or GB/s (decimal), time in seconds since the job started.
func chart(c *Card, format string, width, height vg.Length) ([]byte, error) {
	p := plot.New()
	p.Title.Text = c.Label + ": throughput"
	p.X.Label.Text = "seconds since the job started"
	peak := 0.0
	for _, pt := range c.series {
		peak = max(peak, pt.rate)
	}
	unit, div := "MB/s", 1e6
	if peak >= 1e9 {
		unit, div = "GB/s", 1e9
	}
	p.Y.Label.Text = unit
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	styles := []struct {
		phase, label string
		col          color.RGBA
		dashes       []vg.Length
	}{
		{"copy", "copy (reading the card)", color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, nil},
		{"verify", "verify (reading the copies back)", color.RGBA{R: 0xd0, G: 0x60, B: 0x10, A: 0xff}, []vg.Length{vg.Points(4), vg.Points(2)}},
	}
	drawn := 0
	for _, s := range styles {
		var xys plotter.XYs
		for _, pt := range c.series {
			if pt.phase == s.phase {
				xys = append(xys, plotter.XY{X: pt.t, Y: pt.rate / div})
			}
		}
		if len(xys) == 0 {
			continue
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
		p.Legend.Add(s.label, l)
		drawn++
	}
	if drawn == 0 {
		p.Title.Text = c.Label + ": no throughput samples (the card took less than a second)"
		p.X.Max, p.Y.Max = 1, 1
	}
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return nil, fmt.Errorf("drawing the chart of %s: %w", c.Label, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
