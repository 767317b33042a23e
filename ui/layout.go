package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
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
