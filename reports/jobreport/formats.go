package jobreport

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Formats are the report formats, as --format names them.
var Formats = []string{"csv", "json", "html", "pdf"}

// Write renders r in format (csv, json, html, pdf, clips, proxies, ale
// or ale:RATE) to w. A panic
// in a writer is recovered and returned as a *[FormatError] naming the
// format and the job: a report never crashes dit.
func (r *Report) Write(format string, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &FormatError{Format: format, JobID: r.Job.ID, Err: fmt.Errorf("crashed: %v (a bug in dit: please report it)", p),
				Panic: p, Stack: debug.Stack()}
		}
	}()
	return writeFormat(r, format, w)
}

// writeFormat renders one format; tests replace it to make a writer fail.
var writeFormat = (*Report).write

// FormatError is a report format that could not be rendered or written.
type FormatError struct {
	Format string
	JobID  int64
	Path   string // the file it was written to, "" when it was not rendered
	Err    error
	Panic  any    // set when the writer panicked
	Stack  []byte // the panicking goroutine's stack
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("the %s report of job %d", e.Format, e.JobID)
	if e.Path != "" {
		s += " (" + e.Path + ")"
	}
	return s + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

func (r *Report) write(format string, w io.Writer) error {
	switch format {
	case "csv":
		return r.WriteCSV(w)
	case "json":
		return r.WriteJSON(w)
	case "html":
		return r.WriteHTML(w)
	case "pdf":
		return r.WritePDF(w)
	case ClipSheetFormat:
		return r.WriteClipSheet(w)
	case ProxySheetFormat:
		return r.WriteProxySheet(w)
	}
	if rate, ok := strings.CutPrefix(format, ALEFormat); ok && (rate == "" || rate[0] == ':') {
		return r.WriteALE(w, strings.TrimPrefix(rate, ":"))
	}
	if rate, ok := strings.CutPrefix(format, EDLFormat); ok && (rate == "" || rate[0] == ':') {
		return r.WriteEDL(w, strings.TrimPrefix(rate, ":"))
	}
	if rate, ok := strings.CutPrefix(format, FCPXMLFormat); ok && (rate == "" || rate[0] == ':') {
		return r.WriteFCPXML(w, strings.TrimPrefix(rate, ":"))
	}
	return fmt.Errorf("unknown report format %q: use %s", format, strings.Join(Formats, ", "))
}

// csvTime renders a time for the CSV: RFC 3339 UTC, "" when unknown.
func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// WriteCSV writes one row per file (and per skipped entry) of every card:
// its hashes and its state on each destination (see the package doc). The
// destinations are numbered in the header (dest1_state, ...); a block of
// rows before it, one per destination, whose first field starts with '#',
// names them: "# dest1,/Volumes/RAID,,...", so the table below the header
// holds only files. The rows are written as the files are
// read; a read that fails ends the file with a row "# INCOMPLETE: ..."
// and returns the error.
func (r *Report) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	head := r.csvHead()
	cascade := r.Cascade()
	for i, d := range r.Destinations {
		row := make([]string, len(head))
		row[0], row[1] = fmt.Sprintf("# dest%d", i+1), commentText(d.Path)
		if cascade {
			row[4] = runName(d.Run) + " run"
		}
		if d.Array != nil {
			row[5] = commentText(d.Array.Note())
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	if err := csvRow(cw, bw, head); err != nil {
		return err
	}
	for i := range r.Cards {
		if err := r.csvCard(cw, bw, i); err != nil {
			return endCSV(cw, bw, err)
		}
	}
	return endCSV(cw, bw, nil)
}

// endCSV ends a streamed CSV: with readErr (a catalog read that failed)
// a last row "# INCOMPLETE: <why>" and readErr; else the first write
// error, if any.
func endCSV(cw *csv.Writer, bw *bufio.Writer, readErr error) error {
	cw.Flush()
	if readErr != nil {
		fmt.Fprintf(bw, "# INCOMPLETE: %s\n", commentText(readErr.Error()))
		bw.Flush()
		return readErr
	}
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// csvHead is the CSV's header row.
func (r *Report) csvHead() []string {
	head := []string{"card", "path", "size_bytes", "modified_utc", "state", "error"}
	head = append(head, r.Job.Hashes...)
	for i := range r.Destinations {
		n := strconv.Itoa(i + 1)
		head = append(head, "dest"+n+"_state", "dest"+n+"_verified_at", "dest"+n+"_verified_by")
	}
	// A cascade: the card's times and its second run's TB/hour, at the end
	// of each of its rows.
	if r.Cascade() {
		head = append(head, "card_free_at", "safe_to_format_at", "second_run_copy_tb_per_hour", "second_run_tb_per_hour")
	}
	return head
}

// csvRow writes one row; a first field that starts with '#' is quoted,
// so that no reader takes the row for a comment.
func csvRow(cw *csv.Writer, bw *bufio.Writer, row []string) error {
	if !strings.HasPrefix(row[0], "#") {
		return cw.Write(row)
	}
	cw.Flush()
	bw.WriteString(`"` + strings.ReplaceAll(row[0], `"`, `""`) + `"`)
	rw := csv.NewWriter(bw)
	if err := rw.Write(append([]string{""}, row[1:]...)); err != nil {
		return err
	}
	rw.Flush()
	return rw.Error()
}

// csvCard writes the rows of card i: its files as they are read, then
// its skipped entries.
func (r *Report) csvCard(cw *csv.Writer, bw *bufio.Writer, i int) error {
	c := &r.Cards[i]
	var cardCols []string
	if r.Cascade() {
		cardCols = cascadeCSV(c)
	}
	row := make([]string, 0, 6+len(r.Job.Hashes)+3*len(r.Destinations)+len(cardCols))
	err := r.eachFile(i, func(f *File) error {
		row = append(row[:0], c.Label, f.Path, strconv.FormatInt(f.Size, 10), csvTime(f.Mtime), f.State, f.Error)
		for _, a := range r.Job.Hashes {
			row = append(row, f.Hashes[a])
		}
		for _, d := range r.Destinations {
			var cp *Copy
			for i := range f.Copies {
				if f.Copies[i].Dest == d.Path {
					cp = &f.Copies[i]
				}
			}
			if cp == nil {
				row = append(row, "not copied", "", "")
				continue
			}
			st := cp.State
			if cp.Error != "" {
				st += ": " + cp.Error
			}
			row = append(row, st, csvTime(cp.VerifiedAt), cp.VerifiedBy)
		}
		row = append(row, cardCols...)
		return csvRow(cw, bw, row)
	})
	if err != nil {
		return err
	}
	for _, s := range c.Skipped {
		row := []string{c.Label, s.Path, "", "", "skipped (" + s.Kind + ")", s.Reason}
		for range r.Job.Hashes {
			row = append(row, "")
		}
		for range r.Destinations {
			row = append(row, "", "", "")
		}
		row = append(row, cardCols...)
		if err := csvRow(cw, bw, row); err != nil {
			return err
		}
	}
	if c.SkippedMore > 0 {
		// A comment row (readers that skip comments skip it): the
		// entries left out, and the command that lists them all.
		row := make([]string, len(r.csvHead()))
		row[0], row[1], row[4], row[5] = "# not listed", commentText(c.Label), "skipped", moreLine(c.SkippedMore, "skipped", r.Job.ID)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// cascadeCSV are a cascade card's columns: when it was free and safe to
// format ("" when it was not), its second run's copy and end-to-end
// TB/hour ("" without a second run).
func cascadeCSV(c *Card) []string {
	free, safe, copyTBH, e2e := "", "", "", ""
	if c.CardFree {
		free = csvTime(c.FreeAt)
	}
	if c.SafeToFormat {
		safe = csvTime(c.SafeAt)
	}
	if c.Then != nil {
		copyTBH = strconv.FormatFloat(c.Then.CopyTBPerHour, 'f', 3, 64)
		e2e = strconv.FormatFloat(c.Then.EndToEndTBPerHour, 'f', 3, 64)
	}
	return []string{free, safe, copyTBH, e2e}
}

// commentText makes s safe on one '#' line of the CSV (readers that skip
// comments skip lines, not records): a name with a line break or another
// control character is written quoted, Go style.
func commentText(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}
