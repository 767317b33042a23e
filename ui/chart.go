package ui

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// palette gives each card a colour that reads on light and dark themes.
var palette = []color.NRGBA{
	{R: 0x1f, G: 0x77, B: 0xd4, A: 0xff}, // blue
	{R: 0xf0, G: 0x7a, B: 0x10, A: 0xff}, // orange
	{R: 0x18, G: 0xa8, B: 0x6b, A: 0xff}, // green
	{R: 0xc8, G: 0x2f, B: 0x8c, A: 0xff}, // magenta
	{R: 0x8a, G: 0x5c, B: 0xd6, A: 0xff}, // violet
	{R: 0xb8, G: 0x9b, B: 0x00, A: 0xff}, // ochre
	{R: 0x00, G: 0x9c, B: 0xb5, A: 0xff}, // teal
	{R: 0xd1, G: 0x3c, B: 0x3c, A: 0xff}, // red
}

func cardColor(i int) color.NRGBA { return palette[i%len(palette)] }

// chartSeries is one card's line (or a cascade's second run of a card:
// a thinner line of the card's colour).
type chartSeries struct {
	Label  string
	Points []sample
	Card   int  // the card's index: its colour
	Second bool // a second run
}

// throughputChart draws each card's throughput over the last minutes, one
// line per card, in decimal GB/s, with Fyne canvas primitives only.
type throughputChart struct {
	widget.BaseWidget
	series []chartSeries
	start  time.Time // the job's start: the axis never reaches before it
	now    time.Time
	window time.Duration
}

func newThroughputChart() *throughputChart {
	c := &throughputChart{window: 5 * time.Minute}
	c.ExtendBaseWidget(c)
	return c
}

// set replaces the data and redraws (call on the UI goroutine).
func (c *throughputChart) set(series []chartSeries, start, now time.Time, window time.Duration) {
	c.series, c.start, c.now, c.window = series, start, now, window
	c.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (c *throughputChart) CreateRenderer() fyne.WidgetRenderer {
	r := &chartRenderer{c: c}
	r.rebuild()
	return r
}

type chartRenderer struct {
	c       *throughputChart
	size    fyne.Size
	objects []fyne.CanvasObject
}

func (r *chartRenderer) MinSize() fyne.Size { return fyne.NewSize(420, 110) }

func (r *chartRenderer) Layout(size fyne.Size) {
	if size != r.size {
		r.size = size
		r.rebuild()
	}
}

func (r *chartRenderer) Refresh() {
	r.rebuild()
	canvas.Refresh(r.c)
}

func (r *chartRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *chartRenderer) Destroy()                     {}

// span returns the visible time range: the last window, at least a
// minute, never before the job started.
func (c *throughputChart) span() (from, to time.Time) {
	to = c.now
	d := to.Sub(c.start)
	d = min(max(d, time.Minute), c.window)
	return to.Add(-d), to
}

func (r *chartRenderer) rebuild() {
	c := r.c
	fg := theme.ColorForWidget(theme.ColorNameForeground, c)
	grid := theme.ColorForWidget(theme.ColorNameSeparator, c)
	capSize := theme.Size(theme.SizeNameCaptionText)
	w, h := r.size.Width, r.size.Height
	if w <= 0 || h <= 0 {
		w, h = r.MinSize().Width, r.MinSize().Height
	}
	var objs []fyne.CanvasObject
	text := func(s string, x, y float32, align fyne.TextAlign, col color.Color) {
		t := canvas.NewText(s, col)
		t.TextSize = capSize
		t.Alignment = align
		sz := fyne.MeasureText(s, capSize, t.TextStyle)
		switch align {
		case fyne.TextAlignTrailing:
			x -= sz.Width
		case fyne.TextAlignCenter:
			x -= sz.Width / 2
		}
		t.Move(fyne.NewPos(x, y-sz.Height/2))
		t.Resize(sz)
		objs = append(objs, t)
	}

	from, to := c.span()
	peak := 0.0
	for _, s := range c.series {
		for _, p := range s.Points {
			if !p.T.Before(from) && p.Rate > peak {
				peak = p.Rate
			}
		}
	}
	step, dec := niceStep(peak*1.1, 4)
	top := step * math.Max(1, math.Ceil(peak*1.1/step))
	left := fyne.MeasureText(gbps(top, dec), capSize, fyne.TextStyle{}).Width + 12
	const legendH, bottomH, right = 26, 22, 12
	px, py := left, float32(legendH)
	pw, ph := w-left-right, h-legendH-bottomH
	if pw < 10 || ph < 10 {
		r.objects = nil
		return
	}
	yOf := func(v float64) float32 { return py + ph - float32(v/top)*ph }
	secs := to.Sub(from).Seconds()
	xOf := func(t time.Time) float32 { return px + float32(t.Sub(from).Seconds()/secs)*pw }

	// Grid and the rate axis.
	for v := 0.0; v <= top*1.0001; v += step {
		y := yOf(v)
		l := canvas.NewLine(grid)
		l.StrokeWidth = 1
		l.Position1, l.Position2 = fyne.NewPos(px, y), fyne.NewPos(px+pw, y)
		objs = append(objs, l)
		text(gbps(v, dec), px-6, y, fyne.TextAlignTrailing, fg)
	}
	// The time axis: ticks back from now.
	tick := 10 * time.Second
	switch {
	case secs > 240:
		tick = time.Minute
	case secs > 90:
		tick = 30 * time.Second
	}
	for back := time.Duration(0); back <= to.Sub(from); back += tick {
		x := xOf(to.Add(-back))
		label := "now"
		if back > 0 {
			label = "-" + shortDur(back)
		}
		l := canvas.NewLine(grid)
		l.StrokeWidth = 1
		l.Position1, l.Position2 = fyne.NewPos(x, py), fyne.NewPos(x, py+ph)
		objs = append(objs, l)
		text(label, x, py+ph+bottomH/2+2, fyne.TextAlignCenter, fg)
	}

	// One line per card, and its legend entry.
	lx := px
	for _, s := range c.series {
		col := cardColor(s.Card)
		width, swH := float32(2.5), float32(10)
		if s.Second {
			width, swH = 1.2, 4
		}
		var prev *sample
		for k := range s.Points {
			p := &s.Points[k]
			if p.T.Before(from) {
				continue
			}
			if prev != nil {
				l := canvas.NewLine(col)
				l.StrokeWidth = width
				l.Position1 = fyne.NewPos(xOf(prev.T), yOf(prev.Rate))
				l.Position2 = fyne.NewPos(xOf(p.T), yOf(p.Rate))
				objs = append(objs, l)
			}
			prev = p
		}
		sw := canvas.NewRectangle(col)
		sw.Move(fyne.NewPos(lx, legendH/2-swH/2))
		sw.Resize(fyne.NewSize(18, swH))
		objs = append(objs, sw)
		text(s.Label, lx+24, legendH/2, fyne.TextAlignLeading, fg)
		lx += 24 + fyne.MeasureText(s.Label, capSize, fyne.TextStyle{}).Width + 18
	}
	if peak == 0 {
		text("no throughput yet", px+pw/2, py+ph/2, fyne.TextAlignCenter, fg)
	}
	r.objects = objs
}

// shortDur formats tick offsets: "30s", "2m", "1m30s".
func shortDur(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	case s > 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}
