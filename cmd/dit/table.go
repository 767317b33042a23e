package main

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// writeTable writes rows as columns separated by two spaces, each cell
// padded to its column's width as a terminal shows it (display width:
// a CJK character or an emoji takes two cells, a combining mark of an
// NFD name none), which text/tabwriter, counting runes, does not do.
// The last column is not padded, nor a row's trailing empty cells.
func writeTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], runewidth.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-runewidth.StringWidth(c)+2))
			}
		}
		if _, err := io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}
