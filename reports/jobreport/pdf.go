package jobreport

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/ascmhl"
)

// maxPDFLines caps each card's list of failures and of skipped entries in
// the PDF; the CSV and JSON have them all.
const maxPDFLines = 40

// WritePDF writes an A4 PDF: the job, the destinations, and for each card
// its figures and its throughput chart (PNG). Fonts are embedded
// (Liberation Sans, from a Go module), so it renders the same on every
// machine; its dates are the report's generation time.
func (r *Report) WritePDF(w io.Writer) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(r.Generated)
	pdf.SetModificationDate(r.Generated)
	pdf.SetCatalogSort(true)
	pdf.SetTitle(fmt.Sprintf("Offload report: %s (job %d)", r.Job.Name, r.Job.ID), true)
	pdf.SetCreator("dit "+r.Job.ToolVersion, true)
	pdf.AddUTF8FontFromBytes("sans", "", liberationsansregular.TTF)
	pdf.AddUTF8FontFromBytes("sans", "B", liberationsansbold.TTF)
	pdf.SetMargins(15, 15, 15)
	pdf.SetAutoPageBreak(true, 15)
	pdf.AliasNbPages("{nb}")
	pdf.SetFooterFunc(func() {
		pdf.SetY(-12)
		pdf.SetFont("sans", "", 8)
		pdf.CellFormat(0, 5, fmt.Sprintf("dit job %d %s, page %d of {nb}", r.Job.ID, r.Job.Name, pdf.PageNo()), "", 0, "C", false, 0, "")
	})
	pdf.AddPage()
	const width = 180.0

	heading := func(size float64, text string) {
		pdf.SetFont("sans", "B", size)
		pdf.MultiCell(width, size*0.5, text, "", "L", false)
		pdf.Ln(1)
		pdf.SetFont("sans", "", 9)
	}
	kv := func(key, value string) {
		pdf.SetFont("sans", "B", 9)
		pdf.CellFormat(38, 5, key, "", 0, "L", false, 0, "")
		pdf.SetFont("sans", "", 9)
		pdf.MultiCell(width-38, 5, value, "", "L", false)
	}
	line := func(text string) {
		pdf.MultiCell(width, 4.5, text, "", "L", false)
	}

	heading(16, fmt.Sprintf("Offload report: %s (job %d)", r.Job.Name, r.Job.ID))
	kv("Job", fmt.Sprintf("%d %s (%s)", r.Job.ID, r.Job.Name, r.Job.State))
	kv("Host", r.Job.Host)
	kv("Tool", "dit "+r.Job.ToolVersion)
	kv("Started", formatTime(r.Job.Started))
	kv("Finished", formatTime(r.Job.Finished))
	kv("Hashes", strings.Join(r.Job.Hashes, ", "))
	kv("Verify", fmt.Sprintf("%s (recomputing %s)", r.Job.Verify, r.Job.VerifyHashes))
	kv("Cards", fmt.Sprintf("%d, %d safe to format", r.Totals.Cards, r.Totals.SafeToFormat))
	kv("Files", fmt.Sprintf("%d files, %s, %d skipped, %d failed", r.Totals.Files, units.FormatBytes(r.Totals.Bytes), r.Totals.Skipped, r.Totals.Failed))
	kv("End to end", FormatTBH(r.Totals.TBPerHour))
	kv("Report generated", formatTime(r.Generated))
	pdf.Ln(3)

	heading(12, "Destinations")
	for _, d := range r.Destinations {
		kv("Destination", ascmhl.DisplayName(d.Path))
		kv("", fmt.Sprintf("%d verified, %d copied not verified, %d failed, %d skipped, %s; write %s (p95 %s), read back %s (p95 %s)",
			d.Verified, d.Copied, d.Failed, d.Skipped, units.FormatBytes(d.Bytes), formatRate(d.WriteRate.Mean), formatRate(d.WriteRate.P95),
			formatRate(d.ReadBackRate.Mean), formatRate(d.ReadBackRate.P95)))
	}

	for i := range r.Cards {
		c := &r.Cards[i]
		pdf.AddPage()
		heading(13, fmt.Sprintf("Card %s: %s", c.Label, c.Verdict))
		kv("Source", ascmhl.DisplayName(c.Source))
		if c.Media != "" {
			kv("Media", c.Media)
		}
		if c.Bus != "" {
			kv("Bus", c.Bus)
		}
		kv("Files", fmt.Sprintf("%d files, %s, %d skipped, %d failed", c.Files, units.FormatBytes(c.Bytes), len(c.Skipped), len(c.Failures)))
		kv("Copy", fmt.Sprintf("%s to %s: %s", formatTime(c.CopyStarted), formatTime(c.CopyFinished), FormatTBH(c.CopyTBPerHour)))
		kv("Verify", fmt.Sprintf("%s to %s: %s", formatTime(c.VerifyStarted), formatTime(c.VerifyFinished), FormatTBH(c.VerifyTBPerHour)))
		kv("End to end", FormatTBH(c.EndToEndTBPerHour))
		kv("Copy rate", rateText(c.CopyRate))
		kv("Verify rate", rateText(c.VerifyRate))
		for _, d := range c.Destinations {
			kv("On", fmt.Sprintf("%s: %d verified, %d copied not verified, %d failed, %d skipped",
				ascmhl.DisplayName(d.Path), d.Verified, d.Copied, d.Failed, d.Skipped))
		}
		png, err := chart(c, "png", 17*vg.Centimeter, 8.5*vg.Centimeter)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("chart%d", i)
		pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(png))
		pdf.Ln(2)
		pdf.ImageOptions(name, pdf.GetX(), pdf.GetY(), 170, 85, true, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
		pdf.Ln(2)
		list := func(title string, n int, item func(int) string) {
			if n == 0 {
				return
			}
			heading(11, title)
			for k := 0; k < n && k < maxPDFLines; k++ {
				line(item(k))
			}
			if n > maxPDFLines {
				line(fmt.Sprintf("... and %d more: see the CSV report", n-maxPDFLines))
			}
		}
		list(fmt.Sprintf("Failures (%d)", len(c.Failures)), len(c.Failures), func(k int) string {
			return ascmhl.DisplayName(c.Failures[k].Path) + ": " + c.Failures[k].Error
		})
		list(fmt.Sprintf("Skipped (%d)", len(c.Skipped)), len(c.Skipped), func(k int) string {
			return fmt.Sprintf("%s: %s (%s)", ascmhl.DisplayName(c.Skipped[k].Path), c.Skipped[k].Reason, c.Skipped[k].Kind)
		})
	}
	if err := pdf.Error(); err != nil {
		return err
	}
	return pdf.Output(w)
}

func rateText(s Rate) string {
	if s.Samples == 0 {
		return "no samples (under a second)"
	}
	return fmt.Sprintf("mean %s, min %s, max %s, p95 %s (%d samples)", formatRate(s.Mean), formatRate(s.Min), formatRate(s.Max), formatRate(s.P95), s.Samples)
}
