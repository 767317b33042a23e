package jobreport

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fitColumns sets the widths of a table's columns from its values, over
// width. A column whose every value (each line of it) is a figure (a
// number, a timecode, a frame rate, a size with its unit, a resolution:
// atomic) is as wide as
// its longest value, so no figure is ever split; any other column at
// least as wide as its longest piece that should not break (a word, a
// path's segment: SplitText breaks at spaces, after a path separator and
// around CJK). Every column is at least as wide as its header's lines.
// What is left of width goes to the columns whose longest value does not
// fit on one line, in proportion to what each lacks (any still left: to
// each column in proportion to its width). When even that much does not
// fit, the text columns give way (their words are cut), never the
// figures, the widest text first. Columns in fixed keep their width (a thumbnail's). bold says
// which cells are drawn in bold (nil: none); header lines are bold at
// headSize.
func (d pdfDoc) fitColumns(cols []column, rows [][]string, size, headSize, width float64, bold func(row, col int) bool, fixed ...int) []column {
	out := append([]column(nil), cols...)
	margin := 2*d.GetCellMargin() + 0.2
	minW := make([]float64, len(cols))
	maxW := make([]float64, len(cols))
	isFixed := make([]bool, len(cols))
	atomic := make([]bool, len(cols))
	for _, i := range fixed {
		isFixed[i] = true
		width -= cols[i].w
	}
	for i, c := range cols {
		if isFixed[i] {
			continue
		}
		d.SetFont("sans", "B", headSize)
		for _, l := range strings.Split(c.title, "\n") {
			minW[i] = max(minW[i], d.GetStringWidth(l)+margin)
		}
		maxW[i] = minW[i]
		atomic[i] = true
		for r, row := range rows {
			if i >= len(row) {
				continue
			}
			style := ""
			if bold != nil && bold(r, i) {
				style = "B"
			}
			d.SetFont("sans", style, size)
			v := row[i]
			for _, line := range strings.Split(v, "\n") {
				atomic[i] = atomic[i] && isFigure(line) // a figure a line (TC in above TC out)
				maxW[i] = max(maxW[i], d.GetStringWidth(line)+margin)
				for _, w := range splitWords(line) {
					minW[i] = max(minW[i], d.GetStringWidth(strings.TrimSpace(w))+margin)
				}
			}
		}
		if atomic[i] {
			minW[i] = maxW[i]
		}
	}
	var sumMin, sumLack, sumAtomic, sumText float64
	for i := range cols {
		if isFixed[i] {
			continue
		}
		sumMin += minW[i]
		sumLack += maxW[i] - minW[i]
		if atomic[i] {
			sumAtomic += minW[i]
		} else {
			sumText += minW[i]
		}
	}
	extra := width - sumMin
	// When the text must give way, the widest text gives first: each
	// text column keeps its longest piece up to a cap that fills what the
	// figures leave (a long name breaks; a short word, "ProRes", does not).
	textCap := math.Inf(1)
	if extra < 0 && sumAtomic < width && sumText > 0 {
		var ws []float64
		for i := range cols {
			if !isFixed[i] && !atomic[i] {
				ws = append(ws, minW[i])
			}
		}
		sort.Float64s(ws)
		rest := width - sumAtomic
		for k, w := range ws {
			if w*float64(len(ws)-k) > rest {
				textCap = rest / float64(len(ws)-k)
				break
			}
			rest -= w
		}
	}
	for i := range out {
		if isFixed[i] {
			continue
		}
		switch {
		case extra < 0 && sumAtomic < width && sumText > 0:
			if atomic[i] {
				out[i].w = minW[i]
			} else {
				out[i].w = min(minW[i], textCap) // the text gives way, the widest first
			}
		case extra < 0:
			out[i].w = minW[i] * width / sumMin
		case sumLack > extra:
			out[i].w = minW[i] + (maxW[i]-minW[i])*extra/sumLack
		default:
			out[i].w = maxW[i] + (extra-sumLack)*maxW[i]/(sumMin+sumLack)
		}
	}
	return out
}

// isFigure says whether a cell's value is a figure that must stay on one
// line: it has a digit, is at most 16 characters and has at most one
// space ("29.97", "01:00:00;00", "2.59 MB", "3840x2160", "1,204"); or it
// is empty or "-".
func isFigure(v string) bool {
	if v == "" || v == "-" {
		return true
	}
	return strings.IndexFunc(v, unicode.IsDigit) >= 0 && utf8.RuneCountInString(v) <= 16 && strings.Count(v, " ") <= 1
}
