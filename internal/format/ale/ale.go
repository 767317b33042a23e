// Package ale writes Avid Log Exchange files: the tab-separated clip logs
// Avid Media Composer, DaVinci Resolve and most dailies tools import to
// bring a shoot day's clips in with their names, timecodes, reels and
// metadata before or instead of the media.
//
// An ALE has three sections, each named on a line of its own:
//
//	Heading
//	FIELD_DELIM	TABS
//	VIDEO_FORMAT	1080
//	AUDIO_FORMAT	48khz
//	FPS	25
//
//	Column
//	Name	Tracks	Start	End	Duration	Tape	Source File	...
//
//	Data
//	A001C001_230512_R2EC	V	10:00:01:00	10:00:03:00	00:00:02:00	A001	...
//
// Heading is key TAB value lines; FPS is the one timecode rate of every
// row (a day shot at two rates makes two files: [Split]). Column is one
// line of column names, Data one line per clip with a value per column (a
// value never holds a tab or a line break: [Write] replaces them with
// spaces). Start is the first frame's timecode, End the one after the
// last (exclusive) and Duration their difference, so readers that check
// Start + Duration = End accept the file. Name, Tracks, Start, End,
// Duration, Tape and Source File are Avid's own columns; any other name
// is a custom column both Avid and Resolve import as clip metadata.
package ale

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// File is one ALE: its heading values and its rows.
type File struct {
	// FPS is the timecode rate ("23.976", "25", "29.97"); VideoFormat
	// Avid's format name (1080, 720, NTSC, PAL, CUSTOM; "" CUSTOM).
	FPS         string
	VideoFormat string
	// Columns are the column names, in order; Rows the values, one map
	// per clip (a column a row lacks is written empty).
	Columns []string
	Rows    []map[string]string
}

// Write writes f as an ALE (CRLF-free, UTF-8: Avid and Resolve read both).
func Write(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	vf := f.VideoFormat
	if vf == "" {
		vf = "CUSTOM"
	}
	fmt.Fprintf(bw, "Heading\nFIELD_DELIM\tTABS\nVIDEO_FORMAT\t%s\nAUDIO_FORMAT\t48khz\nFPS\t%s\n\n", clean(vf), clean(f.FPS))
	cols := make([]string, len(f.Columns))
	for i, c := range f.Columns {
		cols[i] = clean(c)
	}
	fmt.Fprintf(bw, "Column\n%s\n\nData\n", strings.Join(cols, "\t"))
	for _, r := range f.Rows {
		vals := make([]string, len(f.Columns))
		for i, c := range f.Columns {
			vals[i] = clean(r[c])
		}
		fmt.Fprintln(bw, strings.Join(vals, "\t"))
	}
	return bw.Flush()
}

// clean keeps a value on its line and in its column.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// VideoFormat is Avid's name of a resolution "WxH".
func VideoFormat(res string) string {
	var w, h int
	if _, err := fmt.Sscanf(res, "%dx%d", &w, &h); err != nil {
		return "CUSTOM"
	}
	switch {
	case w == 1920 && h == 1080:
		return "1080"
	case w == 1280 && h == 720:
		return "720"
	case w == 720 && h == 486:
		return "NTSC"
	case w == 720 && h == 576:
		return "PAL"
	}
	return "CUSTOM"
}

// Tracks is the Tracks value of a clip with picture and channels audio
// channels, as Avid writes it: each channel an audio track, V for
// picture alone (MOS), VA1 with one channel, VA1A2 with two, and so on.
func Tracks(channels int) string {
	var b strings.Builder
	b.WriteString("V")
	for i := 1; i <= channels; i++ {
		fmt.Fprintf(&b, "A%d", i)
	}
	return b.String()
}

// Split groups rows by their value of column fps (one ALE per timecode
// rate); the groups come in the order of their first row, each with its
// rate.
func Split(rows []map[string]string, fps string) (rates []string, groups [][]map[string]string) {
	at := map[string]int{}
	for _, r := range rows {
		k := r[fps]
		i, ok := at[k]
		if !ok {
			i = len(rates)
			at[k] = i
			rates = append(rates, k)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return rates, groups
}

// Read parses an ALE (for tests and tools): heading values, columns and
// rows. It checks the structure Avid's reader needs: the three sections
// in order, a heading of key TAB value lines, and no row with more values
// than columns.
func Read(r io.Reader) (heading map[string]string, cols []string, rows [][]string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	section := ""
	heading = map[string]string{}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		switch strings.TrimSpace(line) {
		case "Heading", "Column", "Data":
			next := strings.TrimSpace(line)
			if order[next] != order[section]+1 {
				return nil, nil, nil, fmt.Errorf("line %d: %s section out of order", n, next)
			}
			section = next
			continue
		case "":
			continue
		}
		switch section {
		case "Heading":
			k, v, ok := strings.Cut(line, "\t")
			if !ok {
				return nil, nil, nil, fmt.Errorf("line %d: a heading line is KEY<TAB>VALUE: %q", n, line)
			}
			heading[k] = v
		case "Column":
			if cols != nil {
				return nil, nil, nil, fmt.Errorf("line %d: a second line of columns", n)
			}
			cols = strings.Split(line, "\t")
		case "Data":
			vals := strings.Split(line, "\t")
			if len(vals) > len(cols) {
				return nil, nil, nil, fmt.Errorf("line %d: %d values for %d columns", n, len(vals), len(cols))
			}
			rows = append(rows, vals)
		default:
			return nil, nil, nil, fmt.Errorf("line %d: text before the Heading", n)
		}
	}
	if section != "Data" {
		return nil, nil, nil, fmt.Errorf("no Data section")
	}
	return heading, cols, rows, sc.Err()
}

var order = map[string]int{"": 0, "Heading": 1, "Column": 2, "Data": 3}

// SortedKeys lists a row's extra columns (those not in cols), sorted: for
// building Columns from rows.
func SortedKeys(rows []map[string]string, cols []string) []string {
	have := map[string]bool{}
	for _, c := range cols {
		have[c] = true
	}
	var out []string
	for _, r := range rows {
		for k := range r {
			if !have[k] {
				have[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
