package jobreport

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas draws a chart (gonum/plot) straight into the PDF's page as
// vector paths and text, in a box of the page: lines, grid, ticks and
// legend as the HTML's SVG draws them, its text in the report's own
// fonts (the fallback chain: a card named in any script is drawn). It
// costs a fraction of a raster chart (no pixels rasterized and
// compressed) and prints sharp at any size. Built on gonum's vgpdf,
// which draws into a document of its own.
//
// Coordinates are gonum's: points, from the box's bottom left, y up.
// fpdf works in the page's millimetres from its top left, y down: the
// box's transform (begin) maps one onto the other.
type pdfCanvas struct {
	d     pdfDoc
	w, h  vg.Length
	stack []pdfCanvasState
}

// pdfCanvasState is what Pop gives back: a PDF's Q restores it in the
// PDF, and fpdf, which does not know, is told it again.
type pdfCanvasState struct {
	width  vg.Length
	col    color.Color
	dashes []vg.Length
	offs   vg.Length
}

// pdfDraw draws into the box of the page at x, y (its top left, mm), w
// by h mm, with draw, and leaves the document's drawing state (colours,
// line width, dashes, font) as it found it.
func pdfDraw(d pdfDoc, x, y, w, h float64, draw func(c *pdfCanvas)) {
	dr, dg, db := d.GetDrawColor()
	fr, fg, fb := d.GetFillColor()
	tr, tg, tb := d.GetTextColor()
	lw := d.GetLineWidth()
	style, size := d.t.style, d.t.size
	px, py := d.GetXY()
	c := &pdfCanvas{d: d, w: vg.Length(w) * vg.Millimeter, h: vg.Length(h) * vg.Millimeter, stack: make([]pdfCanvasState, 1)}
	_, pageH := d.GetPageSize()
	k := d.GetConversionRatio()
	d.TransformBegin()
	// fpdf writes user (u, v) as PDF (u k, (pageH - v) k); this maps that
	// to (x + u, the box's bottom + v): y up from the box's bottom left.
	d.Transform(fpdf.TransformMatrix{A: 1, B: 0, C: 0, D: -1, E: x * k, F: (2*pageH - y - h) * k})
	vg.Initialize(c)
	draw(c)
	d.TransformEnd()
	// The PDF's state is back (Q); fpdf's own is told again.
	d.SetDrawColor(dr, dg, db)
	d.SetFillColor(fr, fg, fb)
	d.SetTextColor(tr, tg, tb)
	d.SetLineWidth(lw)
	d.SetDashPattern(nil, 0)
	d.SetFont("", style, size)
	d.SetXY(px, py)
}

func (c *pdfCanvas) unit(l vg.Length) float64 { return float64(l / vg.Millimeter) }

func (c *pdfCanvas) point(p vg.Point) (float64, float64) { return c.unit(p.X), c.unit(p.Y) }

func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

func (c *pdfCanvas) top() *pdfCanvasState { return &c.stack[len(c.stack)-1] }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.top().width = w
	c.d.SetLineWidth(c.unit(w))
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	c.top().dashes, c.top().offs = dashes, offs
	ds := make([]float64, len(dashes))
	for i, l := range dashes {
		ds[i] = c.unit(l)
	}
	c.d.SetDashPattern(ds, c.unit(offs))
}

// SetColor sets the colour of lines, fills and text (the charts' are
// opaque: alpha is not drawn).
func (c *pdfCanvas) SetColor(col color.Color) {
	if col == nil {
		col = color.Black
	}
	c.top().col = col
	r, g, b, _ := col.RGBA()
	c.d.SetDrawColor(int(r>>8), int(g>>8), int(b>>8))
	c.d.SetFillColor(int(r>>8), int(g>>8), int(b>>8))
	c.d.SetTextColor(int(r>>8), int(g>>8), int(b>>8))
}

// Rotate, Translate and Scale are about the canvas's origin (fpdf's
// user origin: the transform of pdfDraw makes it the box's).
func (c *pdfCanvas) Rotate(rad float64) { c.d.TransformRotate(-rad*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(p vg.Point) { c.d.TransformTranslate(c.point(p)) }

func (c *pdfCanvas) Scale(x, y float64) { c.d.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, c.stack[len(c.stack)-1])
	c.d.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.d.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
	st := *c.top()
	c.SetLineWidth(st.width)
	c.SetLineDash(st.dashes, st.offs)
	c.SetColor(st.col)
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.top().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// FillString draws s with its baseline's left end at p, in the report's
// fonts at f's size.
func (c *pdfCanvas) FillString(f font.Face, p vg.Point, s string) {
	if f.Font.Size == 0 || s == "" {
		return
	}
	c.Push()
	defer c.Pop()
	c.Translate(p)
	c.Scale(1, -1) // text upright: y down again, from the baseline
	c.d.SetFont("", "", f.Font.Size.Points())
	rs := c.d.runs(s)
	c.d.measure(rs)
	x := 0.0
	for _, r := range rs {
		if len(r.draw) > 0 || r.actual != "" {
			if r.actual != "" { // what it stands for (an emoji drawn from its PUA code), as CellFormat
				c.d.RawWriteStr("/Span <</ActualText " + pdfString(r.actual) + ">> BDC")
			}
			c.d.useFace(r.face)
			c.d.Fpdf.Text(x, 0, string(r.draw))
			if r.actual != "" {
				c.d.RawWriteStr("EMC")
			}
		}
		x += r.w
	}
	c.d.useFace(faceLatin)
}

// DrawImage is not used by the charts: an image is left out.
func (c *pdfCanvas) DrawImage(vg.Rectangle, image.Image) {
	c.d.SetError(fmt.Errorf("a chart drew an image, which the PDF's vector charts do not draw"))
}

// path draws p, stroked ("D") or filled ("F").
func (c *pdfCanvas) path(p vg.Path, style string) {
	var x0, y0 float64
	started := false
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = c.point(comp.Pos)
			c.d.MoveTo(x0, y0)
		case vg.LineComp:
			c.d.LineTo(c.point(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, started)
		case vg.CurveComp:
			px, py := c.point(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.point(comp.Control[0])
				c.d.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.point(comp.Control[0])
				dx, dy := c.point(comp.Control[1])
				c.d.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			}
		case vg.CloseComp:
			c.d.LineTo(x0, y0)
			c.d.ClosePath()
		}
		started = true
	}
	c.d.DrawPath(style)
}

// arc adds an arc to the path, from a line to its start (a move when
// the path has no point yet). fpdf's arcs turn in the PDF's y-up space,
// which the box's transform mirrors: the angles are negated.
func (c *pdfCanvas) arc(comp vg.PathComp, started bool) {
	sx := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start))
	sy := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start))
	if started {
		c.d.LineTo(c.unit(sx), c.unit(sy))
	} else {
		c.d.MoveTo(c.unit(sx), c.unit(sy))
	}
	const deg = 180 / math.Pi
	r := c.unit(comp.Radius)
	c.d.ArcTo(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, 0, -comp.Start*deg, -(comp.Start+comp.Angle)*deg)
}

var _ vg.Canvas = (*pdfCanvas)(nil)
