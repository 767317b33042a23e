package jobreport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"

	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"
)

// The PDF's text: names are any Unicode, and fpdf takes one TrueType font
// at a time with a cmap of the BMP only. So each piece of text is cut into
// runs, each drawn in the first font of a fallback chain that has its
// characters (Liberation Sans, then Noto Sans for Latin, Greek and
// Cyrillic, Noto Sans Arabic,
// Noto Sans CJK, Noto Emoji: subsets embedded from fonts/, see
// fonts/build.py); a character none has is drawn as U+FFFD and logged.
// Emoji above U+FFFF are drawn from the Private Use Area where
// fonts/build.py moved them, and Arabic is shaped and laid right to left:
// such a run carries its real text as /ActualText, so that the PDF's text
// (pdftotext, copy and paste, search) is the names as they are.

//go:embed fonts/*.ttf.gz fonts/emoji.map
var fontFiles embed.FS

// pdfFace is one font of the chain.
type pdfFace struct {
	family string // fpdf's family name
	files  [2]string
	bold   bool // has a bold style
	rtl    bool // Arabic: shaped, right to left

	data  [2][]byte // regular, bold: given, or read from files
	once  sync.Once
	font  *sfnt.Font
	err   error
	mu    sync.Mutex
	cover map[rune]bool
}

var (
	// faceLatin keeps the report's look of before: Liberation Sans (a Go
	// module) for what it has; Noto Sans for the rest of Latin, Greek and
	// Cyrillic (and U+FFFD).
	faceLatin  = &pdfFace{family: "sans", data: [2][]byte{liberationsansregular.TTF, liberationsansbold.TTF}, bold: true}
	faceSans   = &pdfFace{family: "noto", files: [2]string{"NotoSans-Regular", "NotoSans-Bold"}, bold: true}
	faceArabic = &pdfFace{family: "arabic", files: [2]string{"NotoSansArabic-Regular", "NotoSansArabic-Bold"}, bold: true, rtl: true}
	faceCJK    = &pdfFace{family: "cjk", files: [2]string{"NotoSansCJK-Regular"}}
	faceEmoji  = &pdfFace{family: "emoji", files: [2]string{"NotoEmoji-Regular"}}
	// pdfFaces is the fallback chain, in order.
	pdfFaces = []*pdfFace{faceLatin, faceSans, faceArabic, faceCJK, faceEmoji}
)

func (f *pdfFace) load() error {
	f.once.Do(func() {
		for i, n := range f.files {
			if n == "" || f.data[i] != nil {
				continue
			}
			gz, err := fontFiles.Open("fonts/" + n + ".ttf.gz")
			if err != nil {
				f.err = err
				return
			}
			zr, err := gzip.NewReader(gz)
			if err == nil {
				f.data[i], err = io.ReadAll(zr)
			}
			gz.Close()
			if err != nil {
				f.err = fmt.Errorf("font %s: %w", n, err)
				return
			}
		}
		f.font, f.err = sfnt.Parse(f.data[0])
		f.cover = map[rune]bool{}
	})
	return f.err
}

// has tells whether the face has a glyph for r (r as drawn: an emoji
// above U+FFFF is asked as its Private Use Area code).
func (f *pdfFace) has(r rune) bool {
	if f.load() != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.cover[r]; ok {
		return v
	}
	var b sfnt.Buffer
	g, err := f.font.GlyphIndex(&b, r)
	v := err == nil && g != 0
	f.cover[r] = v
	return v
}

// emojiPUA maps an emoji above U+FFFF to where fonts/build.py put it.
var emojiPUA = sync.OnceValue(func() map[rune]rune {
	m := map[rune]rune{}
	b, err := fontFiles.ReadFile("fonts/emoji.map")
	if err != nil {
		return m
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for i := 0; sc.Scan(); i++ {
		if v, err := strconv.ParseUint(strings.TrimSpace(sc.Text()), 16, 32); err == nil {
			m[rune(v)] = 0xE000 + rune(i)
		}
	}
	return m
})

// Warn logs what a report could not do as it should (a character no
// embedded font has, a card's clips that could not be recognised), on
// stderr. Tests replace it.
var Warn = func(msg string) { fmt.Fprintln(os.Stderr, "dit: "+msg) }

// textState is the text state of a document: the style and size asked for,
// the faces added to fpdf, the characters no face had.
type textState struct {
	style   string
	size    float64
	added   map[string]bool
	missing map[rune]bool
	// set is the font useFace last set, as fpdf then said it was (its
	// family, style and size): while fpdf still says so, the same face
	// is not set again (fpdf writes each SetFont into the page, and sets
	// its font again at the top of each new page: a row of cells set the
	// same font a dozen times, 88 % of a page of the clips table).
	set fontSet
}

// fontSet is fpdf's font where useFace set it.
type fontSet struct {
	key, family, style string
	size               float64
}

// fontNow is fpdf's font now, for face key.
func (d pdfDoc) fontNow(key string) fontSet {
	pt, _ := d.Fpdf.GetFontSize()
	return fontSet{key: key, family: d.Fpdf.GetFontFamily(), style: d.Fpdf.GetFontStyle(), size: pt}
}

// zeroWidth are characters drawn as nothing (kept in the text).
func zeroWidth(r rune) bool {
	switch {
	case r == 0x200B, r == 0x200C, r == 0x200D, r == 0x2060, r == 0xFEFF, r == 0x034F,
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r >= 0xE0000 && r <= 0xE007F,
		r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
		r == 0x061C, r == 0x180E:
		return true
	}
	return false
}

// textRun is a piece of text drawn in one face.
type textRun struct {
	face   *pdfFace
	draw   []rune // what is drawn, in visual order
	actual string // the text it stands for, when not draw
	w      float64
}

// neutral characters join the run before them when its face has them.
func neutral(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
}

// runs cuts s into runs of one face each.
func (d pdfDoc) runs(s string) []textRun {
	s = norm.NFC.String(s)
	var out []textRun
	var cur *textRun
	var src strings.Builder // the text of cur
	changed := false
	flush := func() {
		if cur == nil {
			return
		}
		var trail []rune
		if cur.face.rtl {
			// Spaces after right-to-left text stay after it, on the right.
			n := len(cur.draw)
			for n > 0 && unicode.IsSpace(cur.draw[n-1]) {
				n--
			}
			trail = append(trail, cur.draw[n:]...)
			cur.draw = cur.draw[:n]
			t := src.String()
			src.Reset()
			src.WriteString(strings.TrimRightFunc(t, unicode.IsSpace))
		}
		if changed {
			cur.actual = src.String()
		}
		if cur.face.rtl {
			// Drawn shaped, right to left; its text in the same visual
			// order, as readers take right-to-left text in a PDF (and
			// turn it back to logical order).
			cur.draw = shapeArabic(cur.draw)
			rs := []rune(src.String())
			slices.Reverse(rs)
			cur.actual = string(rs)
		}
		out = append(out, *cur)
		if len(trail) > 0 {
			out = append(out, textRun{face: faceLatin, draw: trail})
		}
		cur, changed = nil, false
		src.Reset()
	}
	pua := emojiPUA()
	for _, r := range s {
		if zeroWidth(r) {
			if cur == nil {
				cur = &textRun{face: faceLatin}
			}
			src.WriteRune(r)
			changed = true
			continue
		}
		dr := r
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0xD800 && r <= 0xDFFF {
			dr = 0xFFFD
		}
		if p, ok := pua[r]; ok {
			dr = p
		}
		var face *pdfFace
		if r >= 0xE000 && r <= 0xF8FF {
			// A private character of its own: not one of the emoji moved there.
		} else if cur != nil && neutral(r) && cur.face.has(dr) {
			face = cur.face
		} else {
			for _, f := range pdfFaces {
				if f.has(dr) {
					face = f
					break
				}
			}
		}
		if face == nil {
			if d.t != nil && r >= 0x20 {
				d.t.missing[r] = true
			}
			face, dr = faceSans, 0xFFFD
		}
		if cur == nil || cur.face != face {
			flush()
			cur = &textRun{face: face}
		}
		if dr != r {
			changed = true
		}
		cur.draw = append(cur.draw, dr)
		src.WriteRune(r)
	}
	flush()
	return out
}

// useFace makes f the current font, in the style and size asked for.
func (d pdfDoc) useFace(f *pdfFace) {
	style := d.t.style
	if !f.bold {
		style = ""
	}
	key := f.family + style
	if !d.t.added[key] {
		if err := f.load(); err != nil {
			d.SetError(err)
			return
		}
		data := f.data[0]
		if style == "B" {
			data = f.data[1]
		}
		d.AddUTF8FontFromBytes(f.family, style, data)
		d.t.added[key] = true
	}
	if d.t.set.key == key && d.t.set.size == d.t.size && d.fontNow(key) == d.t.set {
		return // fpdf's font is still the one this face set
	}
	d.Fpdf.SetFont(f.family, style, d.t.size)
	d.t.set = d.fontNow(key)
}

// measure sets each run's width.
func (d pdfDoc) measure(rs []textRun) float64 {
	var w float64
	for i := range rs {
		d.useFace(rs[i].face)
		rs[i].w = d.Fpdf.GetStringWidth(string(rs[i].draw))
	}
	d.useFace(faceLatin)
	for _, r := range rs {
		w += r.w
	}
	return w
}

// SetFont sets the style and size of the text that follows (the family is
// always the fallback chain).
func (d pdfDoc) SetFont(_ string, style string, size float64) {
	d.t.style, d.t.size = style, size
	d.useFace(faceLatin)
}

// SetFontSize sets the size of the text that follows.
func (d pdfDoc) SetFontSize(size float64) {
	d.t.size = size
	if pt, _ := d.Fpdf.GetFontSize(); pt == size {
		return // fpdf would write the font it has again
	}
	was := d.fontNow(d.t.set.key) == d.t.set
	d.Fpdf.SetFontSize(size)
	if was {
		d.t.set = d.fontNow(d.t.set.key) // the same face, at its new size
	}
}

// GetStringWidth is the width of s as drawn.
func (d pdfDoc) GetStringWidth(s string) float64 {
	return d.measure(d.runs(s))
}

// utf16BOM is s in UTF-16BE with its byte order mark, as fpdf takes a
// document's title.
func utf16BOM(s string) string {
	b := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return string(b)
}

// pdfString is s as a PDF text string (UTF-16BE with its byte order mark).
func pdfString(s string) string {
	var b strings.Builder
	b.WriteString("<FEFF")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04X", u)
	}
	b.WriteString(">")
	return b.String()
}

// CellFormat is fpdf's CellFormat with the text drawn run by run.
func (d pdfDoc) CellFormat(w, h float64, txt, border string, ln int, align string, fill bool, link int, linkStr string) {
	if w == 0 {
		pw, _ := d.GetPageSize()
		_, _, rm, _ := d.GetMargins()
		w = pw - rm - d.GetX()
	}
	// The box first (it breaks the page when it must), staying beside it.
	d.Fpdf.CellFormat(w, h, "", border, 0, "", fill, link, linkStr)
	x, y := d.GetX()-w, d.GetY()
	if txt != "" {
		rs := d.runs(txt)
		tw := d.measure(rs)
		m := d.GetCellMargin()
		tx := x + m
		switch {
		case strings.Contains(align, "R"):
			tx = x + w - m - tw
		case strings.Contains(align, "C"):
			tx = x + (w-tw)/2
		}
		_, fs := d.GetFontSize()
		base := y + 0.5*h + 0.3*fs
		for _, r := range rs {
			if len(r.draw) > 0 || r.actual != "" {
				if r.actual != "" {
					d.RawWriteStr("/Span <</ActualText " + pdfString(r.actual) + ">> BDC")
				}
				d.useFace(r.face)
				d.Fpdf.Text(tx, base, string(r.draw))
				if r.actual != "" {
					d.RawWriteStr("EMC")
				}
			}
			tx += r.w
		}
		d.useFace(faceLatin)
	}
	switch ln {
	case 1:
		l, _, _, _ := d.GetMargins()
		d.SetXY(l, y+h)
	case 2:
		d.SetXY(x, y+h)
	default:
		d.SetXY(x+w, y)
	}
}

// MultiCell is fpdf's MultiCell (no border) with the text drawn run by
// run: lines wrapped at spaces (or anywhere in a word too long for one).
func (d pdfDoc) MultiCell(w, h float64, txt, border, align string, fill bool) {
	if w == 0 {
		pw, _ := d.GetPageSize()
		_, _, rm, _ := d.GetMargins()
		w = pw - rm - d.GetX()
	}
	x := d.GetX()
	for _, l := range d.SplitText(txt, w) {
		d.SetX(x)
		d.CellFormat(w, h, l, border, 2, align, fill, 0, "")
	}
}

// SplitText splits txt into lines no wider than w (less the cell
// margins), at its line breaks and spaces, inside a word only when it is
// too long for a line (never before a combining mark).
func (d pdfDoc) SplitText(txt string, w float64) []string {
	w -= 2 * d.GetCellMargin()
	if w < 0 {
		// A column squeezed to nothing by its neighbours' long values
		// (255-byte names): one character a line, never a line of none.
		w = 0
	}
	var lines []string
	for _, para := range strings.Split(strings.ReplaceAll(txt, "\r\n", "\n"), "\n") {
		para = strings.TrimRight(para, " ")
		if para == "" {
			lines = append(lines, "")
			continue
		}
		line := ""
		for _, word := range splitWords(para) {
			if line == "" {
				word = strings.TrimLeft(word, " ")
			}
			if d.GetStringWidth(line+word) <= w {
				line += word
				continue
			}
			if line != "" {
				lines = append(lines, strings.TrimRight(line, " "))
				line = ""
				word = strings.TrimLeft(word, " ")
			}
			for word != "" && d.GetStringWidth(word) > w {
				// Cut the word: as many characters as fit, one at least.
				cut := 0
				for i := range clusters(word) {
					if i > 0 && d.GetStringWidth(word[:i]) > w {
						break
					}
					cut = i
				}
				if cut == 0 {
					cut = len(word)
					for i := range clusters(word) {
						if i > 0 {
							cut = i
							break
						}
					}
				}
				lines = append(lines, word[:cut])
				word = word[cut:]
			}
			line = word
		}
		if line != "" || len(lines) == 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// splitWords cuts s before each space that follows a non-space, around
// each CJK character, and after each path separator (/ or \\: a long path
// breaks between its folders, never inside a name); a line may break
// there, and the pieces rejoin as s.
func splitWords(s string) []string {
	var out []string
	start := 0
	prev, prev2 := rune(0), rune(0)
	for i, r := range s {
		// After a separator inside a path (not the one that starts it:
		// " /Volumes" keeps its slash with the name).
		afterSep := (prev == '/' || prev == '\\') && prev2 != 0 && prev2 != ' ' && r != '/' && r != '\\' && r != ' '
		brk := i > start && (r == ' ' && prev != ' ' || isCJK(r) || isCJK(prev) && !unicode.Is(unicode.Mn, r) || afterSep)
		if brk {
			out = append(out, s[start:i])
			start = i
		}
		prev2, prev = prev, r
	}
	return append(out, s[start:])
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// clusters yields the byte offsets where s may be cut: before each
// character that is not a combining mark or a joiner.
func clusters(s string) func(func(int) bool) {
	return func(yield func(int) bool) {
		prev := rune(0)
		for i, r := range s {
			if i > 0 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || zeroWidth(r) || prev == 0x200D) {
				prev = r
				continue
			}
			prev = r
			if !yield(i) {
				return
			}
		}
	}
}

// warnMissing logs the characters no font had.
func (d pdfDoc) warnMissing(what string) {
	if len(d.t.missing) == 0 {
		return
	}
	var cs []string
	for r := range d.t.missing {
		cs = append(cs, fmt.Sprintf("U+%04X", r))
	}
	slices.Sort(cs)
	Warn(fmt.Sprintf("%s: no embedded font has %s: drawn as \uFFFD", what, strings.Join(cs, ", ")))
}

// arabicForms are the presentation forms of Arabic letters: isolated,
// final, initial, medial (0: none; a letter with no initial form joins
// only the letter before it).
var arabicForms = func() map[rune][4]rune {
	m := map[rune][4]rune{}
	next := rune(0xFE80)
	// The letters of U+0621 to U+064A in the order of U+FE80 on, with the
	// number of their forms.
	for _, l := range []struct {
		r rune
		n int
	}{{0x621, 1}, {0x622, 2}, {0x623, 2}, {0x624, 2}, {0x625, 2}, {0x626, 4}, {0x627, 2}, {0x628, 4}, {0x629, 2},
		{0x62A, 4}, {0x62B, 4}, {0x62C, 4}, {0x62D, 4}, {0x62E, 4}, {0x62F, 2}, {0x630, 2}, {0x631, 2}, {0x632, 2},
		{0x633, 4}, {0x634, 4}, {0x635, 4}, {0x636, 4}, {0x637, 4}, {0x638, 4}, {0x639, 4}, {0x63A, 4}, {0x641, 4},
		{0x642, 4}, {0x643, 4}, {0x644, 4}, {0x645, 4}, {0x646, 4}, {0x647, 4}, {0x648, 2}, {0x649, 2}, {0x64A, 4}} {
		var f [4]rune
		for k := 0; k < l.n; k++ {
			f[k] = next + rune(k)
		}
		m[l.r] = f
		next += rune(l.n)
	}
	// Persian letters.
	for r, base := range map[rune]rune{0x67E: 0xFB56, 0x686: 0xFB7A, 0x6A9: 0xFB8E, 0x6AF: 0xFB92, 0x6CC: 0xFBFC} {
		m[r] = [4]rune{base, base + 1, base + 2, base + 3}
	}
	m[0x698] = [4]rune{0xFB8A, 0xFB8B}
	return m
}()

// lamAlef are the ligatures of lam and an alef: isolated, final.
var lamAlef = map[rune][2]rune{0x622: {0xFEF5, 0xFEF6}, 0x623: {0xFEF7, 0xFEF8}, 0x625: {0xFEF9, 0xFEFA}, 0x627: {0xFEFB, 0xFEFC}}

// shapeArabic shapes a run of Arabic (logical order) into presentation
// forms and returns it in visual order (right to left), without its
// combining marks.
func shapeArabic(rs []rune) []rune {
	transparent := func(r rune) bool { return unicode.Is(unicode.Mn, r) }
	// joinsLeft: r connects to the letter after it; joinsRight: to the one before.
	joinsLeft := func(r rune) bool { f, ok := arabicForms[r]; return r == 0x640 || ok && f[2] != 0 }
	joinsRight := func(r rune) bool { f, ok := arabicForms[r]; return r == 0x640 || ok && f[1] != 0 }
	neighbour := func(i, step int) rune {
		for j := i + step; j >= 0 && j < len(rs); j += step {
			if !transparent(rs[j]) {
				return rs[j]
			}
		}
		return 0
	}
	var out [][]rune // clusters, logical order
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if transparent(r) {
			// Vowel marks are left out of the drawing (they would need
			// positioning fpdf cannot do); the text keeps them.
			continue
		}
		f, ok := arabicForms[r]
		if !ok {
			out = append(out, []rune{r})
			continue
		}
		prev, next := neighbour(i, -1), neighbour(i, 1)
		fromRight := prev != 0 && joinsLeft(prev) && joinsRight(r)
		if r == 0x644 {
			// lam then alef: one ligature.
			j := i + 1
			for j < len(rs) && transparent(rs[j]) {
				j++
			}
			if j < len(rs) {
				if la, ok := lamAlef[rs[j]]; ok {
					g := la[0]
					if fromRight {
						g = la[1]
					}
					out = append(out, []rune{g})
					i = j
					continue
				}
			}
		}
		toLeft := next != 0 && joinsLeft(r) && joinsRight(next)
		g := f[0]
		switch {
		case fromRight && toLeft && f[3] != 0:
			g = f[3]
		case fromRight && f[1] != 0:
			g = f[1]
		case toLeft && f[2] != 0:
			g = f[2]
		}
		out = append(out, []rune{g})
	}
	var vis []rune
	for i := len(out) - 1; i >= 0; i-- {
		vis = append(vis, out[i]...)
	}
	return vis
}
