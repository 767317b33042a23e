package jobreport

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg/draw"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/units"
)

// pdfCard is the page of card i.
func (r *Report) pdfCard(d pdfDoc, i int) error {
	c := &r.Cards[i]
	d.AddPage()
	r.pdfCardHead(d, c)
	pdfCardRates(d, c, r.Cascade())
	pdfCardDests(d, c, r.Cascade())
	if err := pdfCardChart(d, c); err != nil {
		return err
	}
	d.list("Failures", pdfList{n: len(c.Failures), more: c.FailuresMore, what: "failed", job: r.Job.ID}, func(k int) (string, string) {
		return ascmhl.DisplayName(c.Failures[k].Path) + ":", plainText(c.Failures[k].Error)
	})
	d.list("Skipped, not copied", pdfList{n: len(c.Skipped), more: c.SkippedMore, what: "skipped", job: r.Job.ID}, func(k int) (string, string) {
		return ascmhl.DisplayName(c.Skipped[k].Path) + ":", skipReason(c.Skipped[k])
	})
	r.pdfClips(d, i)
	pdfProxies(d, c)
	return nil
}

// pdfCardHead is the card's heading, verdict and facts (a cascade's
// card free, second run and safe to format among them).
func (r *Report) pdfCardHead(d pdfDoc, c *Card) {
	d.heading(15, "Card "+c.Label)
	col := colUnsafe
	if c.SafeToFormat {
		col = colSafe
	}
	d.font("B", 12, col)
	d.SetX(pdfMargin)
	d.MultiCell(pdfWidth, 6, verdictText(c), "", "L", false)
	d.Ln(2)
	d.kv("Source", ascmhl.DisplayName(c.Source))
	if c.Media != "" || c.Bus != "" {
		d.kv("Reader", strings.Trim(c.Media+", "+c.Bus, ", "))
	}
	d.kv("Files", fmt.Sprintf("%s, %s; %s skipped, %s failed", plural(c.Files, "file", "files"), units.FormatBytes(c.Bytes),
		thousands(len(c.Skipped)+c.SkippedMore), thousands(failedFiles(c))))
	d.kv("File list", "in the CSV and JSON reports (not in this PDF)")
	d.kv("Copy", span(c.CopyStarted, c.CopyFinished))
	d.kv("Verify", span(c.VerifyStart, c.VerifyEnd))
	if r.Cascade() {
		col := colInk
		if !c.CardFree {
			col = colUnsafe
		}
		d.kvColor("Card free", freeText(c), col)
		if c.Then != nil {
			d.kv("2nd run from", ascmhl.DisplayName(c.Then.Source))
		}
		d.kv("2nd run", secondRunText(c))
		col = colSafe
		if !c.SafeToFormat {
			col = colUnsafe
		}
		d.kvColor("Safe to format", safeAtText(c), col)
	}
	d.Ln(3)
}

// pdfCardRates is the card's table of bytes moved, times, TB/hour and
// per-second rates: copy, verify, end to end (and a second run's).
func pdfCardRates(d pdfDoc, c *Card, cascade bool) {
	u := rateUnitOf(c.CopyRate, c.VerifyRate)
	cols := []column{
		{"", 53, "L"}, {"Moved", 18, "R"}, {"Time\nH:MM:SS", 17, "R"}, {"TB/hour", 16, "R"},
		{"Mean\n" + u.Name(), 15, "R"}, {"Min\n" + u.Name(), 15, "R"}, {"Max\n" + u.Name(), 15, "R"}, {"p95\n" + u.Name(), 15, "R"}, {"Samples", 16, "R"},
	}
	rateCells := func(s Rate) []string {
		if s.Samples == 0 {
			return []string{"-", "-", "-", "-", "0"}
		}
		return []string{u.Num(s.Mean), u.Num(s.Min), u.Num(s.Max), u.Num(s.P95), thousands(s.Samples)}
	}
	rows := [][]string{
		append([]string{"Copy (reading the card)", units.FormatBytes(c.BytesCopied), hmsOr(c.CopySeconds), tbhNum(c.CopyTBPerHour)}, rateCells(c.CopyRate)...),
		verifyRow(c, rateCells),
		{"End to end", units.FormatBytes(c.BytesCopied), hmsOr(c.ActiveSeconds), tbhNum(c.EndToEndTBPerHour), "", "", "", "", ""},
	}
	if cascade && c.Then != nil {
		h := c.Then
		rows = append(rows,
			[]string{"2nd run (reading the first copy)", units.FormatBytes(h.BytesCopied), hmsOr(h.CopySeconds), tbhNum(h.CopyTBPerHour), "", "", "", "", ""},
			[]string{"2nd run end to end", units.FormatBytes(h.BytesCopied), hmsOr(h.ActiveSeconds), tbhNum(h.EndToEndTBPerHour), "", "", "", "", ""})
	}
	d.table(cols, rows, 8.5, false, func(row, col int) cellStyle { return cellStyle{bold: col == 0 || col == 3} })
	if c.VerifyNotApplicable != "" {
		d.Ln(1)
		d.font("", 8, colMuted)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 4, "Verify: "+c.VerifyNotApplicable+": no read-back time or rate.", "", "L", false)
	}
	d.Ln(4)
}

// pdfCardDests is the card's table of destinations: its copies' states
// and the mean write and read-back rates.
func pdfCardDests(d pdfDoc, c *Card, cascade bool) {
	var dr []Rate
	for _, x := range c.Destinations {
		dr = append(dr, x.WriteRate, x.ReadBackRate)
	}
	du := rateUnitOf(dr...)
	dcols := []column{
		{"On destination", 76, "L"}, {"Verified", 14, "R"}, {"Copied,\nnot verified", 18, "R"}, {"Failed", 12, "R"},
		{"Skipped", 14, "R"}, {"Write\nmean " + du.Name(), 23, "R"}, {"Read back\nmean " + du.Name(), 23, "R"},
	}
	failedCol := 3
	if cascade {
		dcols = append([]column{{"On destination", 66, "L"}, {"Run", 10, "L"}}, dcols[1:]...)
		failedCol = 4
	}
	var drows [][]string
	for _, x := range c.Destinations {
		row := []string{ascmhl.DisplayName(x.Path), thousands(x.Verified), thousands(x.Copied), thousands(x.Failed),
			thousands(x.Skipped), du.Num(x.WriteRate.Mean), rbDash(x.VerifiedBy, x.ReadBackRate.Mean, du.Num)}
		if cascade {
			row = append([]string{row[0], runName(x.Run)}, row[1:]...)
		}
		drows = append(drows, row)
	}
	d.table(dcols, drows, 8.5, false, func(row, col int) cellStyle {
		if col == failedCol && c.Destinations[row].Failed > 0 {
			return cellStyle{bold: true, color: &colUnsafe}
		}
		return cellStyle{}
	})
	if cloudCard(c) {
		d.Ln(1)
		d.font("", 8, colMuted)
		for _, x := range c.Destinations {
			d.SetX(pdfMargin)
			d.MultiCell(pdfWidth, 4, ascmhl.DisplayName(x.Path)+": "+x.VerifiedBy.Text(), "", "L", false)
		}
	}
	d.Ln(4)
}

// cloudCard: card c has a copy on a cloud destination.
func cloudCard(c *Card) bool {
	for _, x := range c.Destinations {
		if cloud.IsDest(x.Path) {
			return true
		}
	}
	return false
}

// pdfCardChart draws card c's throughput chart into the page (vector
// paths: pdfchart.go), or says why there is none. A chart that cannot
// be drawn (or whose drawing panics: a bug) is an error.
func pdfCardChart(d pdfDoc, c *Card) (err error) {
	if len(c.series) == 0 {
		d.font("", 9, colMuted)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 5, "No throughput chart: no per-second samples (nothing was moved for a whole second).", "", "L", false)
		d.Ln(2)
		return nil
	}
	const cw, ch = pdfChartW, pdfChartH
	if d.GetY()+ch > pdfBottom {
		d.AddPage()
	}
	p, legend, err := chartPlot(c)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("drawing the chart of card %s crashed: %v", c.Label, p)
		}
	}()
	y := d.GetY()
	pdfDraw(d, pdfMargin, y, cw, ch, func(pc *pdfCanvas) { drawChart(p, draw.New(pc), legend) })
	d.SetY(y + ch + 3)
	return nil
}

// pdfList is what a card's list in the PDF holds: n entries in the
// report, more left out of it (Unlisted), what they are ("failed",
// "skipped") and the job's id (for the command that lists them all).
type pdfList struct {
	n, more int
	what    string
	job     int64
}

// list is a titled list of l's entries (a name in bold and why), the
// first maxPDFLines of them, the title counting them all; the entries
// left out said with the command that lists them all (those in the
// report only: the CSV report has them).
func (d pdfDoc) list(title string, l pdfList, item func(int) (string, string)) {
	n := l.n
	if n == 0 {
		return
	}
	if d.GetY()+14 > pdfBottom {
		d.AddPage()
	}
	d.heading(11, fmt.Sprintf("%s (%s)", title, thousands(n+l.more)))
	for k := 0; k < n && k < maxPDFLines; k++ {
		name, why := item(k)
		if d.GetY()+4.5 > pdfBottom {
			d.AddPage() // before the font is set: the page's footer sets its own
		}
		d.SetX(pdfMargin)
		d.font("B", 8.5, colInk)
		nw := min(d.GetStringWidth(name)+2.5, 80)
		y := d.GetY()
		d.MultiCell(nw, 4.2, name, "", "L", false)
		yName := d.GetY()
		d.SetXY(pdfMargin+nw, y)
		d.font("", 8.5, colInk)
		d.MultiCell(pdfWidth-nw, 4.2, why, "", "L", false)
		d.SetY(max(d.GetY(), yName))
	}
	switch {
	case l.more > 0:
		d.font("", 8.5, colMuted)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 4.2, moreLine(max(n-maxPDFLines, 0)+l.more, l.what, l.job), "", "L", false)
	case n > maxPDFLines:
		d.font("", 8.5, colMuted)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 4.2, fmt.Sprintf("... and %d more: see the CSV report", n-maxPDFLines), "", "L", false)
	}
	d.Ln(3)
}
