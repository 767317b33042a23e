package jobreport

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"codeberg.org/go-pdf/fpdf"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// Clip is one clip of a card (see internal/clips): what the camera's
// folders, names and sidecars say, and ffprobe where it read the clip.
type Clip struct {
	Name       string  `json:"name"`
	Reel       string  `json:"reel,omitempty"`
	Camera     string  `json:"camera,omitempty"`
	Type       string  `json:"type"`
	Codec      string  `json:"codec,omitempty"`
	Resolution string  `json:"resolution,omitempty"`
	FPS        string  `json:"fps,omitempty"`
	Frames     int     `json:"frames,omitempty"`
	Seconds    float64 `json:"seconds,omitempty"`
	TCStart    string  `json:"tc_start,omitempty"`
	// TCEnd is the timecode just after the last frame (exclusive, as an
	// ALE's End: clips.TCOut), "" when the start or the length is unknown.
	TCEnd string `json:"tc_end,omitempty"`
	// SourceFile is the clip's first media file on the card; Files counts
	// its media files and sidecars, Bytes their size.
	SourceFile string `json:"source_file"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes"`
	Verified   bool   `json:"verified"`
	// Thumbnail is the poster frame's path in the reports folder;
	// ThumbnailNote why there is none.
	Thumbnail     string `json:"thumbnail,omitempty"`
	ThumbnailNote string `json:"thumbnail_note,omitempty"`
	// Audio is the clip's sound as the media said it when the [Clipper]
	// read it (nil: nothing read it, as for a clip of a catalog older
	// than its schema version 25); Conflicts where the media and a
	// sidecar disagreed. Both are kept in the catalog's clips.
	Audio     *clips.Audio `json:"audio,omitempty"`
	Conflicts []string     `json:"conflicts,omitempty"`
	// Shot is the camera's serial (camera_serial) and what it was set
	// to (iso, white_balance, lens: as the clip's sidecar said them,
	// schema version 26).
	clips.Shot

	jpeg []byte
}

// JPEG is the clip's poster frame as read by [Build] (nil when there is
// none), for a front end that shows it.
func (k *Clip) JPEG() []byte { return k.jpeg }

// ClipSheetFormat names the clip sheet (a CSV, one row per clip) in
// [Report.Write] and dit report --format.
const ClipSheetFormat = "clips"

// ClipSheetName is the clip sheet's file name.
func (r *Report) ClipSheetName() string {
	return strings.TrimSuffix(r.FileName("csv"), ".csv") + "_clips.csv"
}

// Outputs are the formats dit writes at the end of a job: [Formats], and
// the clip sheet when the job has clips, with its editorial lists when
// asked (Options.ALE: its ALE, EDL and FCPXML files,
// [Report.EditorialOutputs]), and the proxies sheet when it made proxies
// (dit offload --proxies).
func (r *Report) Outputs() []string {
	out := append([]string(nil), Formats...)
	if r.HasClips() {
		out = append(out, ClipSheetFormat)
		if r.ale {
			out = append(out, r.EditorialOutputs()...)
		}
	}
	if r.HasProxies() {
		out = append(out, ProxySheetFormat)
	}
	return out
}

// OutputName is the file name of format f ([Report.FileName], or
// [Report.ClipSheetName] for the clip sheet, or the ALE's).
func (r *Report) OutputName(f string) string {
	if f == ClipSheetFormat {
		return r.ClipSheetName()
	}
	if f == ProxySheetFormat {
		return r.ProxySheetName()
	}
	if _, _, ok := editorialOf(f); ok {
		return r.editorialName(f)
	}
	return r.FileName(f)
}

// HasClips tells whether any card of the job has clips.
func (r *Report) HasClips() bool {
	for _, c := range r.Cards {
		if len(c.Clips) > 0 {
			return true
		}
	}
	return false
}

// loadClips reads a card's clips from the catalog into c.
func loadClips(cat *catalog.Catalog, cardID int64, c *Card) error {
	cs, sum, secs, err := CardClips(cat, cardID)
	if err != nil || len(cs) == 0 {
		return err
	}
	c.Clips, c.Camera, c.CardType, c.ClipSeconds = cs, sum.Camera, sum.Type, round(secs, 3)
	return nil
}

// CardClips reads a card's clips from the catalog (dit job show --clips,
// the reports): the clips with their sound and disagreements, what they
// say of the camera and card type (clips.Summarise), and their total
// duration in seconds.
func CardClips(cat *catalog.Catalog, cardID int64) ([]Clip, clips.Card, float64, error) {
	rows, err := cat.Clips(cardID)
	if err != nil {
		return nil, clips.Card{}, 0, err
	}
	var out []Clip
	var cs []clips.Clip
	var secs float64
	for _, k := range rows {
		out = append(out, Clip{Name: k.Name, Reel: k.Reel, Camera: k.Camera, Type: k.Type, Codec: clips.CodecName(k.Codec),
			Resolution: k.Resolution, FPS: k.FPS, Frames: k.Frames, Seconds: k.Seconds, TCStart: k.TCStart,
			TCEnd:      clips.TCOut(k.TCStart, k.Frames, k.FPS),
			SourceFile: k.Poster, Files: k.Files, Bytes: k.Bytes, Verified: k.Verified, Thumbnail: k.Thumb, ThumbnailNote: k.ThumbNote,
			Audio: clipAudio(k.Audio), Conflicts: k.Conflicts, Shot: clips.Shot(k.ClipShot)})
		cs = append(cs, clips.Clip{Name: k.Name, Family: k.Family, Camera: k.Camera, Type: k.Type})
		secs += k.Seconds
	}
	return out, clips.Summarise(cs), secs, nil
}

// clipAudio is a clip's sound as the catalog keeps it (nil: nothing read
// it).
func clipAudio(a *catalog.ClipAudio) *clips.Audio {
	if a == nil {
		return nil
	}
	return &clips.Audio{Streams: a.Streams, Channels: a.Channels, Rate: a.Rate, Bits: a.Bits, Codec: a.Codec}
}

// loadThumbnails reads the clips' poster frames from the reports folder
// of the first destination that has them (a folder, or a dit array:
// through Options.FS, else opened read-only), and sets the report's note
// when there are clips but no thumbnails.
func (r *Report) loadThumbnails() {
	if !r.HasClips() {
		return
	}
	var labels []string
	for _, c := range r.Cards {
		labels = append(labels, c.Label)
	}
	rel := filepath.FromSlash(Dir(r.Job.Layout, r.Job.Name, r.Job.Started, labels))
	read := r.thumbReader()
	defer read.close()
	any, noFF := false, true
	for i := range r.Cards {
		for j := range r.Cards[i].Clips {
			k := &r.Cards[i].Clips[j]
			if k.ThumbnailNote != clips.NoFFmpeg {
				noFF = false
			}
			if k.Thumbnail == "" {
				continue
			}
			for _, d := range r.Destinations {
				if d.Run == 2 {
					continue
				}
				if b, err := read.file(d.Path, filepath.Join(d.Path, rel, filepath.FromSlash(k.Thumbnail))); err == nil {
					k.jpeg, any = b, true
					break
				}
			}
		}
	}
	switch {
	case any:
	case noFF:
		r.ThumbnailsNote = "no thumbnails (" + clips.NoFFmpeg + ")"
	default:
		r.ThumbnailsNote = "no thumbnails"
	}
}

// thumbReader reads poster frames from folders and dit arrays.
type thumbReader struct {
	fs     fsys.FS                // the job's, or nil
	arrays map[string]*raid.Array // opened read-only here, by blade
}

func (r *Report) thumbReader() *thumbReader {
	return &thumbReader{fs: r.fs, arrays: map[string]*raid.Array{}}
}

// file reads file p below destination root.
func (t *thumbReader) file(root, p string) ([]byte, error) {
	if !raid.IsBlade(root) {
		return os.ReadFile(p)
	}
	if t.fs != nil && fsys.ArrayAt(t.fs, root) != nil {
		f, err := t.fs.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	a, ok := t.arrays[root]
	if !ok {
		var err error
		if a, err = raid.Open([]string{root}, raid.OpenOptions{AllowDegraded: true}); err != nil {
			a = nil
		}
		t.arrays[root] = a
	}
	if a == nil {
		return nil, os.ErrNotExist
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return nil, err
	}
	f, err := a.OpenFile(filepath.ToSlash(rel), false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (t *thumbReader) close() {
	for _, a := range t.arrays {
		if a != nil {
			a.Close()
		}
	}
}

// Unknown is what the reports and dit job show --clips say of a clip's
// length when neither its frames nor its seconds are known.
const Unknown = "unknown"

// Duration is a clip's length as an editor reads it: timecode
// (HH:MM:SS:FF) when frames and rate are known, else H:MM:SS, else
// [Unknown].
func (k *Clip) Duration() string {
	if d := k.durationTC(); d != "" {
		return d
	}
	if k.Seconds > 0 {
		return hms(k.Seconds)
	}
	return Unknown
}

// durationTC is the length as a timecode ("" when frames or rate are
// unknown): a count of frames, never drop-frame.
func (k *Clip) durationTC() string {
	if base := clips.TCBase(k.FPS); base > 0 && k.Frames > 0 {
		return clips.FramesTC(k.Frames, base, false)
	}
	return ""
}

// WriteClipSheet writes the clip sheet: one row per clip of every card,
// with the columns an editor's ALE needs (see the package doc).
func (r *Report) WriteClipSheet(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"card", "name", "tape", "start", "end", "duration", "frames", "fps", "camera", "camera_serial", "codec",
		"resolution", "type", "source_file", "files", "size_bytes", "verified", "thumbnail", "audio", "iso", "white_balance", "lens", "conflicts"}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, c := range r.Cards {
		for _, k := range c.Clips {
			tape := k.Reel
			if tape == "" {
				tape = c.Label
			}
			verified := "no"
			if k.Verified {
				verified = "yes"
			}
			frames := ""
			if k.Frames > 0 {
				frames = strconv.Itoa(k.Frames)
			}
			row := []string{c.Label, k.Name, tape, k.TCStart, k.TCEnd, k.durationTC(), frames, k.FPS, k.Camera, k.Serial, k.Codec,
				k.Resolution, k.Type, k.SourceFile, strconv.Itoa(k.Files), strconv.FormatInt(k.Bytes, 10), verified, k.Thumbnail,
				k.Audio.String(), k.ISO, k.WhiteBalance, k.Lens, strings.Join(k.Conflicts, "; ")}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// clipsHTML is a card's clip list in the HTML report ("" without clips):
// each poster frame inline (a data: URI), so the page stays one file.
func (r *Report) clipsHTML(c *Card) template.HTML {
	if len(c.Clips) == 0 {
		return ""
	}
	esc := template.HTMLEscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "\n<h3>Clips (%d)", len(c.Clips))
	if c.Camera != "" || c.CardType != "" {
		fmt.Fprintf(&b, ": %s", esc(strings.Trim(c.Camera+", "+c.CardType, ", ")))
	}
	b.WriteString("</h3>\n")
	if r.ThumbnailsNote != "" {
		fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", esc(r.ThumbnailsNote))
	}
	b.WriteString("<table class=\"clips\">\n<tr><th></th><th>Clip</th><th>TC in</th><th>TC out</th><th>Duration</th><th>FPS</th><th>Codec</th><th>Resolution</th><th>Audio</th><th>Size</th><th>Verified</th></tr>\n")
	for _, k := range c.Clips {
		thumb := ""
		if len(k.jpeg) > 0 {
			thumb = `<img alt="" width="160" src="data:image/jpeg;base64,` + base64.StdEncoding.EncodeToString(k.jpeg) + `">`
		}
		v := `<span class="notsafe">no</span>`
		if k.Verified {
			v = `<span class="safe">yes</span>`
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"mono\">%s</td><td class=\"mono\">%s</td><td class=\"mono\">%s</td><td class=\"num\">%s</td>"+
			"<td class=\"num\">%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"num\">%s</td><td>%s</td></tr>\n",
			thumb, esc(k.Name), esc(dash(k.TCStart)), esc(dash(k.TCEnd)), esc(k.Duration()), esc(dash(k.FPS)), esc(dash(k.Codec)),
			esc(dash(k.Resolution)), esc(dash(k.Audio.String())), sizeHTML(k.Bytes), v)
	}
	b.WriteString("</table>")
	for _, n := range clipNotes(c) {
		fmt.Fprintf(&b, "\n<p class=\"note\">%s</p>\n<ul class=\"note\">\n", esc(n.title))
		for _, l := range n.lines {
			fmt.Fprintf(&b, "<li>%s</li>\n", esc(l))
		}
		b.WriteString("</ul>")
	}
	return template.HTML(b.String())
}

// ConflictsTitle heads the list of a card's clips whose media and
// sidecars disagree, in the reports.
const ConflictsTitle = "Media and sidecar disagree (the media's values are kept):"

// conflictLines are card c's disagreements between media and sidecars,
// one a line: "A001C001: frames: sidecar 120, media 96 (the media's
// kept)".
func conflictLines(c *Card) []string {
	var out []string
	for _, k := range c.Clips {
		for _, x := range k.Conflicts {
			out = append(out, k.Name+": "+x)
		}
	}
	return out
}

// pdfClips draws a card's clip list with its poster frames (on a new
// page when it does not fit under what is there).
func (r *Report) pdfClips(d pdfDoc, ci int) {
	c := &r.Cards[ci]
	if len(c.Clips) == 0 {
		return
	}
	const thumbW, thumbH, rowH = 28.0, 18.0, 20.0
	if d.GetY()+14+rowH > pdfBottom {
		d.AddPage()
	}
	title := fmt.Sprintf("Clips (%d)", len(c.Clips))
	if c.Camera != "" || c.CardType != "" {
		title += ": " + strings.Trim(c.Camera+", "+c.CardType, ", ")
	}
	d.heading(11, title)
	if r.ThumbnailsNote != "" {
		d.font("", 9, colNote)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 5, r.ThumbnailsNote, "", "L", false)
		d.Ln(1)
	}
	// TC in above TC out, in one column: room for the codec's name.
	cols := []column{{"", thumbW + 2, "L"}, {"Clip", 0, "L"}, {"TC in / out", 17, "L"}, {"Duration", 17.5, "R"},
		{"FPS", 8, "R"}, {"Codec", 21, "L"}, {"Resolution", 16, "L"}, {"Audio", 9, "L"}, {"Size", 14, "R"}, {"Verified", 11, "L"}}
	var cellRows [][]string
	for j := range c.Clips {
		cellRows = append(cellRows, clipCells(&c.Clips[j]))
	}
	cols = d.fitColumns(cols, cellRows, 7.5, 8, pdfWidth, func(_, col int) bool { return col == 1 || col == len(cols)-1 }, 0)
	header := func() {
		d.font("B", 8, colInk)
		x, y := pdfMargin, d.GetY()
		d.fill(colHead)
		d.Rect(x, y, pdfWidth, 5.6, "F")
		for _, col := range cols {
			d.SetXY(x, y+0.8)
			d.CellFormat(col.w, 4, col.title, "", 0, col.align, false, 0, "")
			x += col.w
		}
		d.SetXY(pdfMargin, y+5.6)
	}
	header()
	for j := range c.Clips {
		k := &c.Clips[j]
		if d.GetY()+rowH > pdfBottom {
			d.AddPage()
			header()
		}
		y := d.GetY()
		if len(k.jpeg) > 0 {
			name := fmt.Sprintf("clip-%d-%d", ci, j)
			info := d.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "JPG"}, bytes.NewReader(k.jpeg))
			if info != nil && info.Width() > 0 && info.Height() > 0 && d.Ok() {
				w, h := thumbW, thumbW*info.Height()/info.Width()
				if h > thumbH {
					w, h = thumbH*info.Width()/info.Height(), thumbH
				}
				d.ImageOptions(name, pdfMargin, y+(rowH-h)/2, w, h, false, fpdf.ImageOptions{ImageType: "JPG"}, 0, "")
			} else {
				d.ClearError()
			}
		}
		vcol := colUnsafe
		if k.Verified {
			vcol = colSafe
		}
		cells := cellRows[j]
		x := pdfMargin
		for i, col := range cols {
			switch {
			case i == 1:
				d.font("B", 7.5, colInk) // as fitColumns measured it
			case i == len(cols)-1:
				d.font("B", 7.5, vcol)
			default:
				d.font("", 7.5, colInk)
			}
			lines := d.SplitText(cells[i], col.w)
			for l, s := range lines {
				d.SetXY(x, y+rowH/2-float64(len(lines))*1.8+float64(l)*3.6)
				d.CellFormat(col.w, 3.6, s, "", 0, col.align, false, 0, "")
			}
			x += col.w
		}
		d.SetDrawColor(colRule[0], colRule[1], colRule[2])
		d.SetLineWidth(0.25)
		d.Line(pdfMargin, y+rowH, pdfMargin+pdfWidth, y+rowH)
		d.SetXY(pdfMargin, y+rowH)
	}
	for _, n := range clipNotes(c) {
		d.Ln(1.5)
		d.font("B", 8, colInk)
		d.SetX(pdfMargin)
		d.MultiCell(pdfWidth, 4, n.title, "", "L", false)
		d.font("", 8, colInk)
		for _, l := range n.lines {
			d.SetX(pdfMargin)
			d.MultiCell(pdfWidth, 4, l, "", "L", false)
		}
	}
	d.font("", 9, colInk)
	d.Ln(3)
}

// clipCells are clip k's cells in the PDF's clip table (the first, the
// thumbnail's, empty).
func clipCells(k *Clip) []string {
	verified := "no"
	if k.Verified {
		verified = "yes"
	}
	return []string{"", k.Name, dash(k.TCStart) + "\n" + dash(k.TCEnd), k.Duration(), dash(k.FPS), dash(k.Codec), dash(k.Resolution),
		dash(k.audioShort()), units.FormatBytes(k.Bytes), verified}
}

// audioShort is the clip's sound in a narrow column: "2 ch", "none", ""
// when nothing read it.
func (k *Clip) audioShort() string {
	if k.Audio == nil {
		return ""
	}
	if k.Audio.Channels == 0 {
		return "none"
	}
	return strconv.Itoa(k.Audio.Channels) + " ch"
}

// dash is s, or "-" when it is empty (not known).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// JobClips reads the clips of job jobID's cards (its first run's, by
// label) as its report holds them, with their poster frames read from
// the reports folders on its destinations (o.FS, as Build), and the
// report's ThumbnailsNote; without building the report (no summary, no
// file, no rate read): what a view that lists a job's clips needs, for
// a card of a million frames too. A job that has not finished (running
// or interrupted: no report written yet) has its clips only, no poster
// frame and no note.
func JobClips(cat *catalog.Catalog, jobID int64, o Options) (map[string][]Clip, string, error) {
	j, err := cat.Job(jobID)
	if err != nil {
		return nil, "", err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return nil, "", err
	}
	dests, err := cat.Dests(jobID)
	if err != nil {
		return nil, "", err
	}
	r := &Report{Job: Job{ID: j.ID, Name: j.Name, Layout: j.Layout, Started: j.Started}, fs: o.FS}
	for _, d := range dests {
		dt := DestTotals{Path: d.Path}
		if d.Hop == 2 {
			dt.Run = 2
		}
		r.Destinations = append(r.Destinations, dt)
	}
	for _, k := range catalog.FirstRun(cards) {
		cs, _, _, err := CardClips(cat, k.ID)
		if err != nil {
			return nil, "", err
		}
		r.Cards = append(r.Cards, Card{CardFigures: offload.CardFigures{Label: k.Label}, Clips: cs})
	}
	if j.State != catalog.JobRunning && j.State != catalog.JobInterrupted {
		r.loadThumbnails()
	}
	out := map[string][]Clip{}
	for _, c := range r.Cards {
		if len(c.Clips) > 0 {
			out[c.Label] = c.Clips
		}
	}
	return out, r.ThumbnailsNote, nil
}
