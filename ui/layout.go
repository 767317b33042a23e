package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// rowsLayout lays objects out as a table of cols columns, row by row:
// each column as wide as its widest cell, the last one taking what is
// left. Unlike a grid, short columns (labels, figures) stay short.
type rowsLayout struct{ cols int }

func newRowsLayout(cols int) fyne.Layout { return &rowsLayout{cols: cols} }

func (l *rowsLayout) measure(objs []fyne.CanvasObject) (widths, heights []float32) {
	widths = make([]float32, l.cols)
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		c, r := i%l.cols, i/l.cols
		widths[c] = max(widths[c], m.Width)
		for len(heights) <= r {
			heights = append(heights, 0)
		}
		heights[r] = max(heights[r], m.Height)
	}
	return widths, heights
}

func (l *rowsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	widths, heights := l.measure(objs)
	pad := theme.Padding()
	var w, h float32
	for _, x := range widths {
		w += x
	}
	for _, y := range heights {
		h += y
	}
	w += pad * float32(max(l.cols-1, 0))
	h += pad * float32(max(len(heights)-1, 0))
	return fyne.NewSize(w, h)
}

func (l *rowsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	widths, heights := l.measure(objs)
	pad := theme.Padding()
	var used float32
	for _, x := range widths[:l.cols-1] {
		used += x + pad
	}
	widths[l.cols-1] = max(size.Width-used, widths[l.cols-1])
	var y float32
	for r, h := range heights {
		var x float32
		for c := 0; c < l.cols; c++ {
			i := r*l.cols + c
			if i >= len(objs) {
				break
			}
			objs[i].Move(fyne.NewPos(x, y))
			objs[i].Resize(fyne.NewSize(widths[c], h))
			x += widths[c] + pad
		}
		y += h + pad
	}
}

// figuresLayout lays a tile's figures (labels that wrap) out in one row:
// each as wide as its text when all fit, the room left to the last (the
// run's rate and estimates); when they do not, the last one wraps in what
// the others leave, or, when they would leave it less than 38 %, the
// width is shared in proportion to their texts and each wraps. Its widths follow the texts:
// the running view lays its tree out again at each render (relayout).
type figuresLayout struct{}

// textWidth is the width o's text needs on one line (its widest line),
// with the label's inner padding.
func textWidth(o fyne.CanvasObject) float32 {
	l, ok := o.(*widget.Label)
	if !ok {
		return o.MinSize().Width
	}
	size := theme.SizeForWidget(theme.SizeNameText, l)
	var w float32
	for _, line := range strings.Split(l.Text, "\n") {
		w = max(w, fyne.MeasureText(line, size, l.TextStyle).Width)
	}
	return w + 2*theme.SizeForWidget(theme.SizeNameInnerPadding, l) + 1
}

func (figuresLayout) visible(objs []fyne.CanvasObject) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, o := range objs {
		if o.Visible() {
			out = append(out, o)
		}
	}
	return out
}

func (f figuresLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	vis := f.visible(objs)
	for _, o := range vis {
		m := o.MinSize()
		s.Width += m.Width
		s.Height = max(s.Height, m.Height)
	}
	s.Width += theme.Padding() * float32(max(len(vis)-1, 0))
	return s
}

func (f figuresLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	vis := f.visible(objs)
	if len(vis) == 0 {
		return
	}
	pad := theme.Padding()
	avail := size.Width - pad*float32(len(vis)-1)
	widths := make([]float32, len(vis))
	var sum float32
	for i, o := range vis {
		widths[i] = textWidth(o)
		sum += widths[i]
	}
	last := len(widths) - 1
	switch first := sum - widths[last]; {
	case sum <= avail:
		widths[last] += avail - sum
	case first <= 0.62*avail:
		widths[last] = avail - first // the last one wraps
	default:
		for i := range widths {
			widths[i] *= avail / sum
		}
	}
	var x float32
	for i, o := range vis {
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(widths[i], size.Height))
		x += widths[i] + pad
	}
}
