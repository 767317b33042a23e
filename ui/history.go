package ui

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/reports/jobreport"
)

// historyLimit is how many past jobs the list shows (newest first).
const historyLimit = 200

// jobRow is one past job in the list.
type jobRow struct {
	ID      int64
	Name    string
	State   string
	Started time.Time
	Cards   int
	Safe    int
	Cascade bool // the job has a second run
	Free    int  // its cards free
	Files   int
	Failed  int
	Bytes   int64
	Copied  int64 // bytes copied: none reads "nothing copied"
	TBh     float64
	Err     string
}

// text is the row in two lines: the job, then its totals.
func (r jobRow) text() (string, string) {
	head := fmt.Sprintf("Job %d  %s  (%s)  %s", r.ID, r.Name, r.State, r.Started.Local().Format("2006-01-02 15:04"))
	if r.Err != "" {
		return head, r.Err
	}
	tbh := ""
	if r.TBh > 0 || r.Copied <= 0 && r.Files > 0 && r.State != string(verdict.Running) {
		tbh = ", " + units.FormatCopiedTBPerHour(r.Copied, r.TBh)
	}
	failed := ""
	if r.Failed > 0 {
		failed = fmt.Sprintf(", %d failed", r.Failed)
	}
	free := ""
	if r.Cascade {
		free = fmt.Sprintf(" (cascade: %d free)", r.Free)
	}
	return head, fmt.Sprintf("%d of %d cards safe to format%s, %s, %s%s%s",
		r.Safe, r.Cards, free, plural(r.Files, "file"), units.FormatBytes(r.Bytes), failed, tbh)
}

// jobDetail is an opened job: its summary and catalog cards, and each
// card's clips (by label) with their thumbnails.
type jobDetail struct {
	sum   *offload.Summary
	cards []*catalog.Card
	clips map[string][]jobreport.Clip
	// thumbNote says why the job's clips have no thumbnails.
	thumbNote string
	// proxies: the job's proxies in words, as dit job show says them
	// (assembly.ProxyCount; "" none).
	proxies string
	// arrays: the folders in dit arrays it names, by the engine's name
	// (array:BLADE//PATH), as History says them (arraypath.go).
	arrays map[string]arrayCopy
}

// maxClipRows is how many clips of a card the History lists (the report's
// clip sheet has them all).
const maxClipRows = 200

// thumbWidth is a clip thumbnail's width in the History.
const thumbWidth = 96

// loadJobClips reads the clips of a job's cards with their thumbnails
// (read from the reports folders, as the report does) without building
// the job's report (jobreport.JobClips): opening a job of a card of a
// million frames reads its clips, not its files.
func loadJobClips(cat *catalog.Catalog, id int64) (map[string][]jobreport.Clip, string) {
	out, note, err := jobreport.JobClips(cat, id, jobreport.Options{})
	if err != nil {
		return map[string][]jobreport.Clip{}, ""
	}
	return out, note
}

// historyView lists past jobs from the catalog with their totals and
// TB/hour; an opened job shows its cards and files, exports its report
// and reveals its MHL folders.
type historyView struct {
	a       *App
	content fyne.CanvasObject

	rows     []jobRow
	list     *widget.List
	detail   *fyne.Container
	status   *widget.Label
	selected int64
	seq      int
	open     *jobDetail

	files     *filePages // the card's files shown; nil: none
	fileDests []int64
	filesL    *widget.Label
	table     *widget.Table
}

func newHistoryView(a *App) *historyView {
	v := &historyView{a: a}
	v.list = widget.NewList(func() int { return len(v.rows) },
		func() fyne.CanvasObject {
			head := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			head.Truncation = fyne.TextTruncateEllipsis
			tot := widget.NewLabel("")
			tot.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(head, tot)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(v.rows) {
				head, tot := v.rows[i].text()
				c := o.(*fyne.Container)
				hl := c.Objects[0].(*widget.Label)
				hl.Importance = widget.MediumImportance
				if st := verdict.State(v.rows[i].State); st.Bad() {
					hl.Importance = widget.DangerImportance // failed or interrupted, at a glance
					head = strings.Replace(head, "("+string(st)+")", "("+strings.ToUpper(string(st))+")", 1)
				}
				hl.SetText(head)
				c.Objects[1].(*widget.Label).SetText(tot)
			}
		})
	v.list.OnSelected = func(i widget.ListItemID) {
		if i < len(v.rows) {
			v.openJob(v.rows[i].ID)
		}
	}
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Hide()
	v.detail = container.NewVBox(widget.NewLabel("Choose a job to see its cards and files."))
	v.filesL = widget.NewLabel("")
	v.table = widget.NewTableWithHeaders(
		func() (int, int) {
			n := 0
			if v.files != nil {
				n = v.files.count
			}
			return n, 3 + len(v.fileDests)
		},
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		v.fileCell)
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		switch {
		case id.Row >= 0:
			l.SetText(fmt.Sprint(id.Row + 1))
		case id.Col == 0:
			l.SetText("File")
		case id.Col == 1:
			l.SetText("Size")
		case id.Col == 2:
			l.SetText("State")
		default:
			l.SetText(fmt.Sprintf("Destination %d", id.Col-2))
		}
	}
	v.table.SetColumnWidth(0, 360)
	v.table.SetColumnWidth(1, 100)
	v.table.SetColumnWidth(2, 110)
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), v.reload)
	left := container.NewBorder(container.NewHBox(heading("Past jobs"), refresh), nil, nil, nil, v.list)
	files := container.NewBorder(v.filesL, nil, nil, nil, v.table)
	right := container.NewVSplit(container.NewVScroll(container.NewPadded(container.NewVBox(v.status, v.detail))), files)
	right.Offset = 0.6
	split := container.NewHSplit(left, right)
	split.Offset = 0.42
	v.content = split
	return v
}

// say shows a message in words above the job (an empty one hides it).
func (v *historyView) say(msg string) {
	v.status.SetText(msg)
	if msg == "" {
		v.status.Hide()
	} else {
		v.status.Show()
	}
}

// reload reads the job list in the background (UI goroutine).
func (v *historyView) reload() {
	v.seq++
	seq := v.seq
	cat := v.a.cfg.Catalog
	v.a.goBG(func() {
		rows, err := loadJobRows(cat)
		v.a.do(func() {
			if seq != v.seq {
				return
			}
			if err != nil {
				v.say("Cannot read the catalog: " + err.Error())
				return
			}
			v.rows = rows
			v.list.Refresh()
			if v.selected != 0 {
				v.openJob(v.selected)
			}
		})
	})
}

// loadJobRows reads the newest jobs with their totals.
func loadJobRows(cat *catalog.Catalog) ([]jobRow, error) {
	jobs, err := cat.Jobs()
	if err != nil {
		return nil, err
	}
	var rows []jobRow
	for _, j := range jobs {
		if len(rows) == historyLimit {
			break
		}
		r := jobRow{ID: j.ID, Name: j.Name, State: j.State, Started: j.Started}
		s, err := offload.LoadSummary(cat, j.ID)
		if err != nil {
			r.Err = err.Error()
		} else {
			r.State = string(s.Status) // the verdict model's: done, failed, interrupted, running
			r.Cards, r.Files, r.Failed, r.Bytes, r.TBh = len(s.Cards), s.Files, s.Failed, s.Bytes, s.TBPerHour
			r.Copied = s.BytesCopied
			r.Cascade = len(s.Then) > 0
			for _, c := range s.Cards {
				if c.SafeToFormat {
					r.Safe++
				}
				if c.CardFree {
					r.Free++
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// openJob loads a job's summary and shows it (UI goroutine).
func (v *historyView) openJob(id int64) {
	v.selected = id
	cat := v.a.cfg.Catalog
	v.a.goBG(func() {
		s, err := offload.LoadSummary(cat, id)
		var cards []*catalog.Card
		var cl map[string][]jobreport.Clip
		var note string
		if err == nil {
			cards, err = cat.Cards(id)
			cards = catalog.FirstRun(cards)
		}
		var px string
		var arrays map[string]arrayCopy
		if err == nil {
			cl, note = loadJobClips(cat, id)
			px, err = assembly.ProxyCount(cat, id)
			arrays = arrayCopies(s)
		}
		v.a.do(func() {
			if v.selected != id {
				return
			}
			if err != nil {
				v.say(fmt.Sprintf("Cannot open job %d: %v", id, err))
				return
			}
			v.open = &jobDetail{sum: s, cards: cards, clips: cl, thumbNote: note, proxies: px, arrays: arrays}
			v.renderDetail()
		})
	})
}

func (v *historyView) renderDetail() {
	d := v.open
	s := d.sum
	ended := s.Status != verdict.Running
	v.detail.RemoveAll()
	title := widget.NewLabelWithStyle(fmt.Sprintf("Job %d  %s  (%s)", s.JobID, s.Name, s.Status), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	v.detail.Add(title)
	tot := fmt.Sprintf("%s, %s, %s failed; started %s", plural(s.Files, "file"), units.FormatBytes(s.Bytes),
		plural(s.Failed, "file"), s.Started.Local().Format("2006-01-02 15:04:05"))
	if s.Seconds > 0 {
		tot += fmt.Sprintf(", took %s: %s", units.FormatDuration(time.Duration(s.Seconds*float64(time.Second))), units.FormatCopiedTBPerHour(s.BytesCopied, s.TBPerHour))
	}
	tot += "\nHashes " + s.Hashes + ", verify " + s.Verify
	if len(s.Then) > 0 {
		tot += fmt.Sprintf("\nCascade: first run to %s; second run (from the first copy on %s) to %s",
			strings.Join(s.Destinations, ", "), s.Destinations[0], strings.Join(s.Then, ", "))
	}
	if d.proxies != "" {
		tot += "\nProxies: " + d.proxies
	}
	tl := widget.NewLabel(tot)
	tl.Wrapping = fyne.TextWrapWord
	v.detail.Add(tl)
	buttons := container.NewHBox()
	for _, f := range []string{"pdf", "html", "csv"} {
		buttons.Add(widget.NewButtonWithIcon("Export "+strings.ToUpper(f), theme.DocumentSaveIcon(), func() { v.export(s.JobID, f) }))
	}
	if s.Status == verdict.Interrupted || (s.Status == verdict.Failed && s.State != catalog.JobFailed) {
		// A resume copies only what is not verified: for a failed job,
		// its failed files (the verified ones are kept as they are).
		label := "Resume job"
		if s.Status == verdict.Failed {
			label = "Retry failed files"
		}
		resume := widget.NewButtonWithIcon(label, theme.MediaPlayIcon(), func() { v.resume(s.JobID) })
		resume.Importance = widget.HighImportance
		buttons.Add(resume)
	}
	v.detail.Add(buttons)
	for i, c := range s.Cards {
		i := i
		head := widget.NewLabelWithStyle(c.Label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		verdict := widget.NewLabel(c.Verdict)
		verdict.Importance = widget.DangerImportance
		if c.SafeToFormat {
			verdict.Importance = widget.SuccessImportance
		}
		filesBtn := widget.NewButtonWithIcon("Files", theme.ListIcon(), func() { v.showFiles(i) })
		v.detail.Add(container.NewBorder(nil, nil, container.NewHBox(head, verdict), filesBtn))
		info := fmt.Sprintf("%s, %s from %s", plural(c.Files, "file"), units.FormatBytes(c.Bytes), c.Path)
		if c.TBPerHour > 0 || c.BytesCopied <= 0 && c.Files > 0 && ended {
			info += ", " + units.FormatCopiedTBPerHour(c.BytesCopied, c.TBPerHour)
		}
		il := widget.NewLabel(info)
		il.Wrapping = fyne.TextWrapWord
		v.detail.Add(il)
		for _, ds := range c.Destinations {
			v.addDest(ds)
		}
		v.addFailures(c.Failures, c.FailuresMore, c.Failed, "")
		v.addClips(d.clips[c.Label], d.thumbNote)
		if len(s.Then) > 0 {
			v.addSecondRun(c)
		}
		v.detail.Add(widget.NewSeparator())
	}
	v.detail.Refresh()
}

// addDest shows a card's copy on a destination with its MHL folder
// button (off for a cloud destination: no folder of this machine to
// open; dit verify JOB checks the copies there).
func (v *historyView) addDest(ds offload.DestSummary) {
	at := arrayName(ds) // the engine's name of the folder
	mhl := widget.NewButtonWithIcon("MHL folder", theme.FolderOpenIcon(), func() { v.revealMHL(at) })
	if assembly.IsRemoteDest(at) {
		mhl.Disable()
	}
	if v.open != nil {
		ds.Path = v.open.where(at) // a folder in a dit array in words
	}
	v.detail.Add(container.NewBorder(nil, nil, nil, mhl, destLine(ds)))
}

// destLine is a card's copy on a destination in History: its folder and
// the counts, wrapped (never cut: the failed count is at its end), in the
// failure colour when a file failed there.
func destLine(ds offload.DestSummary) *widget.Label {
	line := widget.NewLabel(fmt.Sprintf("%s: %d verified, %d copied, %d failed, %d skipped", ds.Path, ds.Verified, ds.Copied, ds.Failed, ds.Skipped))
	line.Wrapping = fyne.TextWrapWord
	if ds.Failed > 0 {
		line.Importance = widget.DangerImportance
	}
	return line
}

// addClips lists a card's clips as the reports do: a header, then per
// clip its thumbnail (or why there is none), name, length, files and
// size, TC in, TC out, fps, resolution and codec ("unknown" where nothing
// tells it, never a zero).
func (v *historyView) addClips(cs []jobreport.Clip, thumbNote string) {
	if len(cs) == 0 {
		return
	}
	rows := make([]catalog.Clip, len(cs))
	for i, k := range cs {
		rows[i] = catalog.Clip{Name: k.Name, Camera: k.Camera, Type: k.Type, Seconds: k.Seconds}
	}
	head := "Clips: " + summariseClips(rows).text()
	if thumbNote != "" {
		head += "; " + thumbNote
	}
	hl := widget.NewLabelWithStyle(head, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	hl.Wrapping = fyne.TextWrapWord
	v.detail.Add(hl)
	grid := container.New(newRowsLayout(len(clipColumns)))
	for _, c := range clipColumns {
		grid.Add(widget.NewLabelWithStyle(c, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	for i := range cs {
		if i == maxClipRows {
			v.detail.Add(grid)
			more := widget.NewLabel(fmt.Sprintf("... and %s more (see the report's clip sheet)", plural(len(cs)-i, "clip")))
			v.detail.Add(more)
			return
		}
		for _, o := range clipCells(&cs[i]) {
			grid.Add(o)
		}
	}
	v.detail.Add(grid)
}

// addFailures lists what failed in a run under the summary's count of
// its failed files (n): what failed beside them (its hash lists) is
// listed, not counted as a file; more, the summary's count of the failed
// files it does not list (FailuresMore), is said with those this view
// leaves out.
func (v *historyView) addFailures(fs []offload.Failure, more, n int, what string) {
	if len(fs) == 0 {
		return
	}
	fl := widget.NewLabel(historyFailures(fs, more, n, what))
	fl.Wrapping = fyne.TextWrapWord
	fl.Importance = widget.DangerImportance
	v.detail.Add(fl)
}

// historyFailures is the text addFailures shows: the first 50 of fs,
// then how many more failed (those of fs not shown and more) and where
// they are all listed (the card's Files).
func historyFailures(fs []offload.Failure, more, n int, what string) string {
	var b strings.Builder
	if n > 0 {
		fmt.Fprintf(&b, "%s%s failed:", what, plural(n, "file"))
	} else {
		b.WriteString(what + "Failed:")
	}
	for k, f := range fs {
		if k == 50 {
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", f.Path, firstLine(f.Error))
	}
	if more += len(fs) - min(len(fs), 50); more > 0 {
		fmt.Fprintf(&b, "\n... and %d more (Files lists them all)", more)
	}
	return b.String()
}

// addSecondRun shows a cascade card's two times (card free, safe to
// format) and its second run: from the first copy to the second-run
// destinations, with its TB/hour.
func (v *historyView) addSecondRun(c offload.CardSummary) {
	free, safe := "not free", "not safe to format"
	if c.CardFree {
		free = "free"
		if !c.FreeAt.IsZero() {
			free = "free at " + c.FreeAt.Local().Format("2006-01-02 15:04:05")
		}
	}
	if c.SafeToFormat {
		safe = "safe to format"
		if !c.SafeAt.IsZero() {
			safe = "safe to format at " + c.SafeAt.Local().Format("2006-01-02 15:04:05")
		}
	}
	times := widget.NewLabel("Card " + free + "; " + safe)
	times.Wrapping = fyne.TextWrapWord
	switch {
	case c.SafeToFormat:
		times.Importance = widget.SuccessImportance
	case c.CardFree:
		times.Importance = widget.HighImportance
	default:
		times.Importance = widget.DangerImportance
	}
	v.detail.Add(times)
	h := c.Then
	if h == nil {
		l := widget.NewLabel("2nd run: not started")
		l.Importance = widget.LowImportance
		v.detail.Add(l)
		return
	}
	info := fmt.Sprintf("2nd run (%s): %s, %s from the first copy %s", h.Status, plural(h.Files, "file"), units.FormatBytes(h.Bytes), v.open.where(h.Source))
	if h.TBPerHour > 0 {
		info += ", " + units.FormatTBPerHour(h.TBPerHour)
	}
	if !h.DoneAt.IsZero() {
		info += ", done at " + h.DoneAt.Local().Format("15:04:05")
	}
	il := widget.NewLabelWithStyle(info, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	il.Wrapping = fyne.TextWrapWord
	v.detail.Add(il)
	for _, ds := range h.Destinations {
		v.addDest(ds)
	}
	v.addFailures(h.Failures, h.FailuresMore, h.Failed, "2nd run: ")
}

// showFiles lists a card's files with their state on each destination:
// their count first, then the rows shown, a page at a time (filePages).
func (v *historyView) showFiles(i int) {
	d := v.open
	if d == nil || i >= len(d.sum.Cards) {
		return
	}
	label := d.sum.Cards[i].Label
	var cardID int64
	for _, k := range d.cards {
		if k.Label == label {
			cardID = k.ID
		}
	}
	cat := v.a.cfg.Catalog
	jobID := d.sum.JobID
	v.a.goBG(func() {
		n, err := cat.FileCount(cardID)
		var dests []*catalog.Dest
		if err == nil {
			dests, err = cat.Dests(jobID)
		}
		v.a.do(func() {
			if err != nil {
				v.say("Cannot read the files: " + err.Error())
				return
			}
			if v.files != nil {
				v.files.closed = true // its reads still under way are dropped
			}
			p := newFilePages(cat, cardID, n)
			p.bg, p.do, p.shown = v.a.goBG, v.a.do, v.table.Refresh
			p.failed = func(err error) { v.say("Cannot read the files: " + err.Error()) }
			v.files = p
			v.fileDests = nil
			var names []string
			var first []*catalog.Dest
			for _, dd := range dests {
				if dd.Hop != 2 { // the card's files are on the first run's
					first = append(first, dd)
				}
			}
			for k, dd := range first {
				v.fileDests = append(v.fileDests, dd.ID)
				v.table.SetColumnWidth(3+k, 130)
				names = append(names, fmt.Sprintf("destination %d = %s", k+1, dd.Path))
			}
			v.filesL.SetText(fmt.Sprintf("%s: %s (%s)", label, plural(n, "file"), strings.Join(names, ", ")))
			// The row numbers' column as wide as the last row's number.
			num := widget.NewLabelWithStyle(fmt.Sprint(max(n, 10)), fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
			v.table.SetColumnWidth(-1, num.MinSize().Width)
			v.table.ScrollToTop()
			v.table.Refresh()
		})
	})
}

// fileCell draws a cell of the files table: a row whose page is being
// read shows "…" (drawn again when it has come).
func (v *historyView) fileCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	var f *catalog.File
	if v.files != nil {
		f = v.files.file(id.Row)
	}
	if f == nil {
		l.SetText("")
		if id.Col == 0 && v.files != nil && id.Row < v.files.count {
			l.SetText("…")
		}
		return
	}
	switch id.Col {
	case 0:
		l.SetText(f.Rel)
	case 1:
		l.SetText(units.FormatBytes(f.Size))
	case 2:
		l.SetText(f.State)
	default:
		st := "-"
		want := v.fileDests[id.Col-3]
		for _, cp := range f.Copies {
			if cp.DestID == want {
				st = cp.State
			}
		}
		l.SetText(st)
	}
}

// export builds a job's report in the background, asks where to save
// it, then writes it there as it is rendered: the report's files are
// read from the catalog as they are written (a card of a million frames
// is never held whole, neither as files nor as the report's bytes).
func (v *historyView) export(id int64, format string) {
	cat := v.a.cfg.Catalog
	v.say(fmt.Sprintf("Building the %s report of job %d...", strings.ToUpper(format), id))
	v.a.goBG(func() {
		r, err := jobreport.Build(cat, id, jobreport.Options{})
		v.a.do(func() {
			if err != nil {
				v.say("Cannot export the report: " + err.Error())
				return
			}
			v.say("")
			v.a.cfg.SaveFile(r.FileName(format), func(w io.WriteCloser, path string) {
				v.a.goBG(func() {
					v.a.do(func() {
						v.say(fmt.Sprintf("Writing the %s report of job %d to %s...", strings.ToUpper(format), id, path))
					})
					bw := bufio.NewWriterSize(w, 64<<10)
					err := r.Write(format, bw)
					if ferr := bw.Flush(); err == nil {
						err = ferr
					}
					if cerr := w.Close(); err == nil {
						err = cerr
					}
					v.a.do(func() {
						if err != nil {
							v.say("Cannot save the report: " + err.Error())
							return
						}
						v.say("Report saved to " + path)
					})
				})
			})
		})
	})
}

// revealMHL opens the ASC MHL folder of a card on a destination.
func (v *historyView) revealMHL(cardDir string) {
	if v.open != nil {
		if ac, ok := v.open.arrays[cardDir]; ok && ac.Open == "" {
			v.say(ac.Note)
			return
		} else if ok {
			cardDir = ac.Open // the array mounted: its folder there
		}
	}
	dir := filepath.Join(cardDir, "ascmhl")
	if _, err := os.Stat(dir); err != nil {
		if _, err := os.Stat(cardDir); err != nil {
			v.say(fmt.Sprintf("%s is not a folder here (on a dit array, see it with dit array mount).", cardDir))
			return
		}
		v.say(fmt.Sprintf("%s has no ascmhl folder (the job wrote no ASC MHL): opening the card folder.", cardDir))
		dir = cardDir
	}
	if err := v.a.reveal(dir); err != nil {
		v.say(err.Error())
		return
	}
	if dir != cardDir {
		v.say("Opened " + dir)
	}
}

// resume continues an interrupted job.
func (v *historyView) resume(id int64) {
	a := v.a
	if a.offload.busy || a.running.active() {
		v.say("A job is already running: wait for it to finish, or cancel it.")
		return
	}
	a.offload.busy = true
	a.offload.startBtn.Disable()
	v.say("")
	// The job's settings, hash lists included, come from the catalog.
	a.goBG(func() { a.runJob(jobSettings{Settings: assembly.Settings{Resume: id}}) })
}
