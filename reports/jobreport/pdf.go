package jobreport

import (
	"fmt"
	"io"
	"strings"

	"codeberg.org/go-pdf/fpdf"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/units"
)

// maxPDFLines caps each card's list of failures and of skipped entries in
// the PDF; the CSV and JSON have them all.
const maxPDFLines = 40

// Page geometry (A4, millimetres).
const (
	pdfMargin = 15.0
	pdfWidth  = 180.0 // between the margins
	pdfBottom = 297.0 - 18
)

type rgb [3]int

var (
	colInk    = rgb{17, 17, 17}
	colMuted  = rgb{90, 96, 105}
	colTile   = rgb{241, 243, 246}
	colHead   = rgb{226, 230, 236}
	colRule   = rgb{190, 195, 202}
	colSafe   = rgb{27, 122, 52}
	colUnsafe = rgb{183, 28, 28}
	colNote   = rgb{166, 84, 0}
)

// pdfDoc wraps fpdf with the few things the report draws: headings,
// key/value lines, figure tiles and tables.
type pdfDoc struct {
	*fpdf.Fpdf
	t *textState
}

func (d pdfDoc) font(style string, size float64, c rgb) {
	d.SetFont("sans", style, size)
	d.SetTextColor(c[0], c[1], c[2])
}

func (d pdfDoc) fill(c rgb) { d.SetFillColor(c[0], c[1], c[2]) }

func (d pdfDoc) heading(size float64, text string) {
	d.font("B", size, colInk)
	d.SetX(pdfMargin)
	d.MultiCell(pdfWidth, size*0.45, text, "", "L", false)
	d.Ln(1.5)
}

// kv is a key in bold and its value, wrapped, on one line of the page.
func (d pdfDoc) kv(key, value string) {
	d.SetX(pdfMargin)
	d.font("B", 9, colInk)
	d.CellFormat(40, 5, key, "", 0, "L", false, 0, "")
	d.font("", 9, colInk)
	d.MultiCell(pdfWidth-40, 5, value, "", "L", false)
}

// kvColor is kv with its value in bold, in col.
func (d pdfDoc) kvColor(key, value string, col rgb) {
	d.SetX(pdfMargin)
	d.font("B", 9, colInk)
	d.CellFormat(40, 5, key, "", 0, "L", false, 0, "")
	d.font("B", 9, col)
	d.MultiCell(pdfWidth-40, 5, value, "", "L", false)
}

// tile draws one figure of page 1: a small label, the value in large type,
// and a line under it.
func (d pdfDoc) tile(x, y, w, h float64, label, value, sub string, valueColor rgb) {
	d.fill(colTile)
	d.Rect(x, y, w, h, "F")
	d.font("", 8.5, colMuted)
	d.SetXY(x+3, y+2.5)
	d.CellFormat(w-6, 4, label, "", 0, "L", false, 0, "")
	size := 24.0
	d.font("B", size, valueColor)
	for size > 10 && d.GetStringWidth(value) > w-6 {
		size--
		d.SetFontSize(size)
	}
	d.SetXY(x+3, y+7.5)
	d.CellFormat(w-6, 10, value, "", 0, "L", false, 0, "")
	d.font("", 8, colMuted)
	lines := d.SplitText(sub, w-6)
	for k, line := range lines[:min(2, len(lines))] {
		d.SetXY(x+3, y+18.5+float64(k)*3.6)
		d.CellFormat(w-6, 3.6, line, "", 0, "L", false, 0, "")
	}
}

// column of a table.
type column struct {
	title string // "\n" splits it over two lines
	w     float64
	align string // L, R or C
}

// cellStyle tells how to draw one cell; zero value: regular ink.
type cellStyle struct {
	bold  bool
	color *rgb
}

// table draws a table with wrapped cells (the widths given are replaced
// by ones fitted to the values: fitColumns), repeating its header after a
// page break; total: its last row is a total, under a rule. style may be
// nil.
func (d pdfDoc) table(cols []column, rows [][]string, size float64, total bool, style func(row, col int) cellStyle) {
	var bold func(row, col int) bool
	if style != nil {
		bold = func(row, col int) bool { return style(row, col).bold }
	}
	cols = d.fitColumns(cols, rows, size, size, pdfWidth, bold)
	lineH := size * 0.45
	header := func() {
		d.font("B", size, colInk)
		n := 1
		for _, c := range cols {
			n = max(n, len(strings.Split(c.title, "\n")))
		}
		h := float64(n)*lineH + 2
		x, y := pdfMargin, d.GetY()
		d.fill(colHead)
		d.Rect(x, y, pdfWidth, h, "F")
		for _, c := range cols {
			lines := strings.Split(c.title, "\n")
			for i, l := range lines {
				d.SetXY(x, y+1+float64(n-len(lines)+i)*lineH)
				d.CellFormat(c.w, lineH, l, "", 0, c.align, false, 0, "")
			}
			x += c.w
		}
		d.SetXY(pdfMargin, y+h)
	}
	header()
	for r, row := range rows {
		d.font("", size, colInk)
		cells := make([][]string, len(cols))
		n := 1
		for i, c := range cols {
			st := cellStyle{}
			if style != nil {
				st = style(r, i)
			}
			if st.bold {
				d.SetFont("sans", "B", size)
			} else {
				d.SetFont("sans", "", size)
			}
			cells[i] = d.SplitText(row[i], c.w)
			if len(cells[i]) == 0 {
				cells[i] = []string{""}
			}
			n = max(n, len(cells[i]))
		}
		h := float64(n)*lineH + 1.6
		if d.GetY()+h > pdfBottom {
			d.AddPage()
			header()
		}
		x, y := pdfMargin, d.GetY()
		if total && r == len(rows)-1 {
			d.SetDrawColor(colInk[0], colInk[1], colInk[2])
			d.SetLineWidth(0.35)
			d.Line(pdfMargin, y, pdfMargin+pdfWidth, y)
		}
		for i, c := range cols {
			st := cellStyle{}
			if style != nil {
				st = style(r, i)
			}
			col := colInk
			if st.color != nil {
				col = *st.color
			}
			if st.bold {
				d.font("B", size, col)
			} else {
				d.font("", size, col)
			}
			for k, l := range cells[i] {
				d.SetXY(x, y+0.8+float64(k)*lineH)
				d.CellFormat(c.w, lineH, l, "", 0, c.align, false, 0, "")
			}
			x += c.w
		}
		d.SetDrawColor(colRule[0], colRule[1], colRule[2])
		d.SetLineWidth(0.25)
		d.Line(pdfMargin, y+h, pdfMargin+pdfWidth, y+h)
		d.SetXY(pdfMargin, y+h)
	}
	d.font("", 9, colInk)
}

// WritePDF writes an A4 PDF for the producer. Page 1 leads with the job's
// totals in large type (cards, files, size, copy / verify / end-to-end
// TB/hour, verified, running time, resumed, simulated) and a table with
// one row per card; then the job's settings and destinations, and a page
// per card with its figures, its throughput chart (drawn as vector paths), its failures and
// its skipped entries. Fonts are embedded (Noto, subsets in fonts/, a
// fallback chain per run of text: see pdftext.go), so it renders the same
// on every machine and any name is drawn; its dates are the
// report's generation time.
func (r *Report) WritePDF(w io.Writer) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(r.Generated)
	pdf.SetModificationDate(r.Generated)
	pdf.SetCatalogSort(true)
	// fpdf's own UTF-16 conversion knows no character above U+FFFF.
	pdf.SetTitle(utf16BOM(fmt.Sprintf("Offload report: %s (job %d)", r.Job.Name, r.Job.ID)), false)
	pdf.SetCreator("dit "+r.Job.ToolVersion, true)
	pdf.SetMargins(pdfMargin, pdfMargin, pdfMargin)
	pdf.SetAutoPageBreak(true, 297-pdfBottom)
	pdf.SetCellMargin(1.2)
	pdf.AliasNbPages("{nb}")
	d := pdfDoc{pdf, &textState{added: map[string]bool{}, missing: map[rune]bool{}}}
	d.SetFont("sans", "", 10)
	pdf.SetFooterFunc(func() {
		pdf.SetY(-12)
		d.font("", 7.5, colMuted)
		d.CellFormat(0, 5, fmt.Sprintf("dit job %d %s · report generated %s · page %d of {nb}", r.Job.ID, shorten(r.Job.Name, 60),
			formatTime(r.Generated), pdf.PageNo()), "", 0, "C", false, 0, "")
	})

	r.pdfSummary(d)
	r.pdfDetails(d)
	for i := range r.Cards {
		if err := r.pdfCard(d, i); err != nil {
			return err
		}
	}
	if err := pdf.Error(); err != nil {
		return err
	}
	d.warnMissing(fmt.Sprintf("the PDF report of job %d", r.Job.ID))
	return pdf.Output(w)
}

// pdfSummary is page 1: what a producer reads.
func (r *Report) pdfSummary(d pdfDoc) {
	t := r.Totals
	d.AddPage()
	d.font("B", 20, colInk)
	d.MultiCell(pdfWidth, 9, "Offload report: "+r.Job.Name, "", "L", false)
	d.font("", 10, colMuted)
	d.MultiCell(pdfWidth, 5, fmt.Sprintf("Job %d (%s) on %s, dit %s", r.Job.ID, r.Job.State, r.Job.Host, r.Job.ToolVersion), "", "L", false)
	d.MultiCell(pdfWidth, 5, fmt.Sprintf("Started %s, finished %s", formatTime(r.Job.Started), formatTime(r.Job.Finished)), "", "L", false)
	d.Ln(3)

	// The verdict, as a banner.
	banner := colUnsafe
	if t.Verified {
		banner = colSafe
	}
	y := d.GetY()
	d.fill(banner)
	d.Rect(pdfMargin, y, pdfWidth, 12, "F")
	d.font("B", 15, rgb{255, 255, 255})
	d.SetXY(pdfMargin+3, y)
	d.CellFormat(pdfWidth-6, 12, jobVerdict(t), "", 0, "L", false, 0, "")
	y += 12 + 4

	// The figures in large type: two rows of four tiles.
	const gap, tileH = 4.0, 27.0
	tw := (pdfWidth - 3*gap) / 4
	verified, verifiedSub, verifiedCol := "No", plural(t.Cards-t.SafeToFormat, "card", "cards")+" NOT safe", colUnsafe
	if t.Verified {
		verified, verifiedSub, verifiedCol = "Yes", "every card safe to format", colSafe
	}
	issues := fmt.Sprintf("%s skipped, %s failed", thousands(t.Skipped), thousands(t.Failed))
	endToEnd := units.FormatBytes(t.BytesCopied) + " copied"
	if t.ActiveSeconds > 0 {
		endToEnd = units.FormatBytes(t.BytesCopied) + " in " + hms(t.ActiveSeconds)
	}
	copyTile := [4]string{"Copy, TB/hour", tbhNum(t.CopyTBPerHour), units.FormatBytes(t.BytesCopied) + " copied"}
	e2eTile := [4]string{"End to end, TB/hour", tbhNum(t.TBPerHour), endToEnd}
	if t.BytesCopied == 0 {
		copyTile[1], copyTile[2], e2eTile[1], e2eTile[2] = "—", nothingCopied, "—", nothingCopied
	}
	tiles := [2][4][4]string{
		{
			{"Cards", thousands(t.Cards), fmt.Sprintf("%d safe to format", t.SafeToFormat)},
			{"Files", thousands(t.Files), issues},
			{"Size", units.FormatBytes(t.Bytes), thousands64(t.Bytes) + " bytes"},
			{"Verified", verified, verifiedSub},
		},
		{
			copyTile,
			{"Verify, TB/hour", verifyValue(&t), readBackSub(&t)},
			e2eTile,
			{"Running time", hmsOr(t.ActiveSeconds), hmsOr(t.Seconds) + " start to finish"},
		},
	}
	for row := range tiles {
		for i, tl := range tiles[row] {
			col := colInk
			if row == 0 && i == 3 {
				col = verifiedCol
			}
			d.tile(pdfMargin+float64(i)*(tw+gap), y, tw, tileH, tl[0], tl[1], tl[2], col)
		}
		y += tileH + gap
	}

	// Resumed and simulated, in large type too.
	d.SetXY(pdfMargin, y+1)
	for _, l := range []struct {
		on   bool
		text string
	}{{t.Resumed, resumedText(t)}, {t.Simulated, simulatedText(t)}} {
		col := colInk
		if l.on {
			col = colNote
		}
		d.font("B", 13, col)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 6.5, l.text, "", "L", false)
	}
	cascade := r.Cascade()
	if cascade {
		d.font("B", 11, colNote)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 5.5, r.cascadeRunsText(), "", "L", false)
		d.font("", 10, colInk)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 5, r.cascadeTimesText(), "", "L", false)
	}
	d.Ln(5)

	r.pdfCardsTable(d)
	d.Ln(3)
	note := cardsTableNote(false, "") + " The job's settings, the destinations and each card's throughput chart, " +
		"failures and skipped files follow."
	if sn := r.storageNote(); sn != "" {
		note += " " + sn
	}
	if cascade {
		note = cardsTableNote(true, r.storageNote())
	}
	d.font("", 8.5, colMuted)
	d.SetX(pdfMargin)
	d.MultiCell(pdfWidth, 4, note, "", "L", false)
	d.Ln(1)
	d.font("B", 8.5, colInk)
	d.SetX(pdfMargin)
	d.MultiCell(pdfWidth, 4, r.fileListNote(), "", "L", false)
	if cascade {
		r.pdfCascade(d)
	}
}

// fileListNote says where the files are: the PDF lists none of them. At
// the end of a job the reports are written into each folder destination's
// reports folder; a job with only cloud destinations writes none.
func (r *Report) fileListNote() string {
	where := "written with it into each folder destination's reports folder"
	if !r.hasFolder() {
		where = fmt.Sprintf("not written at the end of this job, which has no folder destination: dit report %d writes them", r.Job.ID)
	}
	return fmt.Sprintf("This PDF lists no files: all %s, with their hashes and their state on every destination, are in "+
		"the job's CSV and JSON reports (%s, .json), %s.",
		plural(r.Totals.Files, "file", "files"), r.FileName("csv"), where)
}

// verifyValue is the job's verify TB/hour in large type: a dash where it
// does not apply (the tile's line under it says why).
func verifyValue(t *Totals) string {
	if t.VerifyNotApplicable != "" {
		return "—"
	}
	return tbhNum(t.VerifyTBPerHour)
}

// pdfCardsTable is page 1's table: a row per card (files, size, the
// three TB/hour, safe to format or why not) and one for all cards.
func (r *Report) pdfCardsTable(d pdfDoc) {
	t := r.Totals
	d.heading(13, "Cards")
	cols := []column{
		{"Card", 34, "L"}, {"Files", 17, "R"}, {"Size", 19, "R"},
		{"Copy\nTB/hour", 19, "R"}, {"Verify\nTB/hour", 19, "R"}, {"End to end\nTB/hour", 22, "R"}, {"Safe to format?", 50, "L"},
	}
	var rows [][]string
	for i := range r.Cards {
		c := &r.Cards[i]
		rows = append(rows, []string{c.Label, thousands(c.Files), units.FormatBytes(c.Bytes),
			tbhNum(c.CopyTBPerHour), verifyDash(c.VerifyTBPerHour, c.VerifyNotApplicable), tbhNum(c.EndToEndTBPerHour), shortVerdict(c)})
	}
	rows = append(rows, []string{"All cards", thousands(t.Files), units.FormatBytes(t.Bytes),
		tbhNum(t.CopyTBPerHour), verifyDash(t.VerifyTBPerHour, t.VerifyNotApplicable), tbhNum(t.TBPerHour), fmt.Sprintf("%d of %d safe", t.SafeToFormat, t.Cards)})
	d.table(cols, rows, 10, true, func(row, col int) cellStyle {
		if row == len(r.Cards) {
			return cellStyle{bold: true}
		}
		if col == 6 {
			if r.Cards[row].SafeToFormat {
				return cellStyle{bold: true, color: &colSafe}
			}
			return cellStyle{bold: true, color: &colUnsafe}
		}
		return cellStyle{bold: col == 0}
	})
}

// pdfCascade is page 1's table of a cascade: when each card was free and
// safe to format, and its second run's TB/hour.
func (r *Report) pdfCascade(d pdfDoc) {
	d.Ln(3)
	if d.GetY()+40 > pdfBottom {
		d.AddPage()
	}
	d.heading(13, "Cascade: card free, then safe to format")
	cols := []column{
		{"Card", 28, "L"}, {"Card free\n(first run\nverified)", 44, "L"}, {"2nd run\ncopy\nTB/hour", 19, "R"},
		{"2nd run\nend to end\nTB/hour", 22, "R"}, {"Safe to format\n(both runs\nverified)", 67, "L"},
	}
	var rows [][]string
	for i := range r.Cards {
		c := &r.Cards[i]
		copyTBH, e2e := "-", "-"
		if c.Then != nil {
			copyTBH, e2e = tbhNum(c.Then.CopyTBPerHour), tbhNum(c.Then.EndToEndTBPerHour)
		}
		rows = append(rows, []string{c.Label, freeText(c), copyTBH, e2e, safeAtText(c)})
	}
	d.table(cols, rows, 10, false, func(row, col int) cellStyle {
		c := &r.Cards[row]
		switch {
		case col == 0:
			return cellStyle{bold: true}
		case col == 1 && !c.CardFree:
			return cellStyle{bold: true, color: &colUnsafe}
		case col == 4 && c.SafeToFormat:
			return cellStyle{bold: true, color: &colSafe}
		case col == 4:
			return cellStyle{bold: true, color: &colUnsafe}
		}
		return cellStyle{}
	})
	d.Ln(3)
	d.font("", 8.5, colMuted)
	d.SetX(pdfMargin)
	d.MultiCell(pdfWidth, 4, "Card free: it may leave the reader, NOT be formatted. Safe to format: the second run, from the first copy, "+
		"verified it too. 2nd run copy: bytes read from the first copy over the time they were read; end to end: over the time the second run took.",
		"", "L", false)
}

// pdfDetails is the page with the job's settings and its destinations.
func (r *Report) pdfDetails(d pdfDoc) {
	d.AddPage()
	d.heading(15, fmt.Sprintf("Job %d: %s", r.Job.ID, r.Job.Name))
	d.kv("State", r.Job.State)
	d.kv("Host", r.Job.Host)
	d.kv("Tool", "dit "+r.Job.ToolVersion)
	d.kv("Started", formatTime(r.Job.Started))
	d.kv("Finished", formatTime(r.Job.Finished))
	d.kv("Start to finish", hmsOr(r.Totals.Seconds))
	d.kv("Running", fmt.Sprintf("%s in %s", hmsOr(r.Totals.ActiveSeconds), plural(max(r.Totals.Runs, 1), "run", "runs")))
	if r.Totals.PausedSeconds > 0 {
		d.kv("Paused", hms(r.Totals.PausedSeconds))
	}
	d.kv("Hashes", strings.Join(r.Job.Hashes, ", "))
	d.kv("Verify", fmt.Sprintf("%s (recomputing %s)", r.Job.Verify, r.Job.VerifyHashes))
	d.kv("Folder layout", r.Job.Layout)
	if r.Job.Error != "" {
		d.kv("Error", plainText(r.Job.Error))
	}
	if r.Cascade() {
		d.kv("Cascade", r.cascadeRuns())
	}
	d.kv("Report generated", formatTime(r.Generated))
	d.Ln(5)

	d.heading(13, "Destinations")
	var rates []Rate
	for _, x := range r.Destinations {
		rates = append(rates, x.WriteRate, x.ReadBackRate)
	}
	u := rateUnitOf(rates...)
	cols := []column{
		{"Destination", 42, "L"}, {"Verified", 14, "R"}, {"Copied,\nnot\nverified", 14, "R"}, {"Failed", 12, "R"}, {"Skipped", 14, "R"},
		{"Size", 16, "R"}, {"Write\nmean\n" + u.Name(), 17, "R"}, {"Write\np95\n" + u.Name(), 17, "R"},
		{"Read back\nmean\n" + u.Name(), 17, "R"}, {"Read back\np95\n" + u.Name(), 17, "R"},
	}
	cascade := r.Cascade()
	if cascade {
		// A column for the run: the destination's name is narrower.
		cols = []column{
			{"Destination", 36.5, "L"}, {"Run", 9, "L"}, {"Verified", 13.5, "R"}, {"Copied,\nnot\nverified", 14, "R"}, {"Failed", 12, "R"},
			{"Skipped", 14, "R"}, {"Size", 13, "R"}, {"Write\nmean\n" + u.Name(), 17, "R"}, {"Write\np95\n" + u.Name(), 17, "R"},
			{"Read back\nmean\n" + u.Name(), 17, "R"}, {"Read back\np95\n" + u.Name(), 17, "R"},
		}
	}
	failedCol := 3
	var rows [][]string
	for _, x := range r.Destinations {
		row := []string{ascmhl.DisplayName(x.Path), thousands(x.Verified), thousands(x.Copied), thousands(x.Failed),
			thousands(x.Skipped), units.FormatBytes(x.Bytes), u.Num(x.WriteRate.Mean), u.Num(x.WriteRate.P95),
			rbDash(x.VerifiedBy, x.ReadBackRate.Mean, u.Num), rbDash(x.VerifiedBy, x.ReadBackRate.P95, u.Num)}
		if cascade {
			row = append([]string{row[0], runName(x.Run)}, row[1:]...)
			failedCol = 4
		}
		rows = append(rows, row)
	}
	d.table(cols, rows, 8.5, false, func(row, col int) cellStyle {
		if col == failedCol && r.Destinations[row].Failed > 0 {
			return cellStyle{bold: true, color: &colUnsafe}
		}
		return cellStyle{}
	})
	d.Ln(2)
	d.font("", 8, colMuted)
	d.SetX(pdfMargin)
	note := fmt.Sprintf("Rates in %s (%s), from per-second samples; \"-\": no samples.", u.Name(), u.means)
	if r.verifiedByStorage() {
		note += " Read back \"—\": not read back, the storage's own MD5 (S3 ETag) verified the copies there (below)."
	}
	if cascade {
		note += " Run: 1st, written from the cards (the card is free once they are verified there); 2nd, written from the first copy " +
			"(the card is safe to format once they are verified there too)."
	}
	d.MultiCell(pdfWidth, 4, note, "", "L", false)
	r.pdfVerifiedBy(d)
}

// pdfVerifiedBy says, for a job with a cloud destination, how each
// destination's copies were verified.
func (r *Report) pdfVerifiedBy(d pdfDoc) {
	if !r.hasCloud() {
		return
	}
	d.Ln(3)
	d.heading(11, "How the copies were verified")
	d.font("", 9, colInk)
	for _, x := range r.Destinations {
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 4.5, ascmhl.DisplayName(x.Path)+": "+x.VerifiedBy.Text(), "", "L", false)
	}
}

// The chart's size on the page, in mm.
const pdfChartW, pdfChartH = pdfWidth, 88.0
