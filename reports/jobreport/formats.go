package jobreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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

// Write renders r in format (csv, json, html, pdf, clips, ale or
// ale:RATE) to w. A panic
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
	}
	if rate, ok := strings.CutPrefix(format, ALEFormat); ok && (rate == "" || rate[0] == ':') {
		return r.WriteALE(w, strings.TrimPrefix(rate, ":"))
	}
	return fmt.Errorf("unknown report format %q: use %s", format, strings.Join(Formats, ", "))
}

// WriteJSON writes the report as indented JSON (see the package doc).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
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
// destinations are numbered in the header (dest1_state, ...); a row per
// destination after it, whose first field starts with '#', names them:
// "# dest1,/Volumes/RAID,,...".
func (r *Report) WriteCSV(w io.Writer) error {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	write := func(row []string) error {
		// A first field that starts with '#' is quoted, so that no reader
		// takes the row for a comment.
		if strings.HasPrefix(row[0], "#") {
			cw.Flush()
			buf.WriteString(`"` + strings.ReplaceAll(row[0], `"`, `""`) + `"`)
			var rest bytes.Buffer
			rw := csv.NewWriter(&rest)
			if err := rw.Write(append([]string{""}, row[1:]...)); err != nil {
				return err
			}
			rw.Flush()
			_, err := buf.Write(rest.Bytes())
			return err
		}
		return cw.Write(row)
	}
	head := []string{"card", "path", "size_bytes", "modified_utc", "state", "error"}
	head = append(head, r.Job.Hashes...)
	for i := range r.Destinations {
		n := strconv.Itoa(i + 1)
		head = append(head, "dest"+n+"_state", "dest"+n+"_verified_at", "dest"+n+"_verified_by")
	}
	// A cascade: the card's times and its second run's TB/hour, at the end
	// of each of its rows.
	cascade := r.Cascade()
	if cascade {
		head = append(head, "card_free_at", "safe_to_format_at", "second_run_copy_tb_per_hour", "second_run_tb_per_hour")
	}
	if err := write(head); err != nil {
		return err
	}
	for i, d := range r.Destinations {
		row := make([]string, len(head))
		row[0], row[1] = fmt.Sprintf("# dest%d", i+1), commentText(d.Path)
		if cascade {
			row[4] = runName(d.Run) + " run"
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, c := range r.Cards {
		var cardCols []string
		if cascade {
			cardCols = cascadeCSV(&c)
		}
		for _, f := range c.FileList {
			row := []string{c.Label, f.Path, strconv.FormatInt(f.Size, 10), csvTime(f.Mtime), f.State, f.Error}
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
			if err := write(row); err != nil {
				return err
			}
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
			if err := write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
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
