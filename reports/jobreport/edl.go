package jobreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/format/edl"
	"github.com/dit-org/dit/internal/format/fcpxml"
	"github.com/dit-org/dit/internal/format/timecode"
)

// EDLFormat names the job's CMX 3600 EDL in [Report.Write] and dit
// report --format: the day's clips back to back, each with its reel,
// clip name and source file (as the ALE's Source File: a path to open)
// for the editing suite to relink; "edl:RATE" for one rate of a job
// that mixes them.
const EDLFormat = "edl"

// FCPXMLFormat names the job's FCPXML (1.10) in [Report.Write] and dit
// report --format: the day's clips as assets linked to their copies (the
// ALE's Source File) and proxies (its Proxy File), in an event and a
// project with them back to back; "fcpxml:RATE" for one rate of a job
// that mixes them.
const FCPXMLFormat = "fcpxml"

// editorial are the formats of the editorial lists, one per frame rate
// each: ALE, EDL, FCPXML.
var editorial = []string{ALEFormat, EDLFormat, FCPXMLFormat}

// editorialOf tells whether output f is an editorial list ("ale",
// "edl:25", ...): its format and rate ("" for the job's one rate).
func editorialOf(f string) (format, rate string, ok bool) {
	for _, e := range editorial {
		if r, found := strings.CutPrefix(f, e); found && (r == "" || r[0] == ':') {
			return e, strings.TrimPrefix(r, ":"), true
		}
	}
	return "", "", false
}

// EditorialOutputs are the job's editorial lists as outputs: its ALEs
// ([Report.ALEOutputs]), then an EDL and an FCPXML of each rate that is
// known (a list of clips of no known rate cannot place them): "edl" and
// "fcpxml" when the job has one rate, else "edl:25", "fcpxml:25", ...
func (r *Report) EditorialOutputs() []string {
	fs := r.aleFilesOn(-1)
	out := r.ALEOutputs()
	for _, e := range editorial[1:] {
		for _, f := range fs {
			switch {
			case timecode.Base(f.rate) <= 0:
			case len(fs) == 1:
				out = append(out, e)
			default:
				out = append(out, e+":"+f.rate)
			}
		}
	}
	return out
}

// editorialName is the file name of editorial output f:
// dit-report_job<ID>_<name>.<ext>, or ..._<rate>fps.<ext> for one of
// several rates.
func (r *Report) editorialName(f string) string {
	format, rate, _ := editorialOf(f)
	name := r.FileName(format)
	if rate != "" {
		name = strings.TrimSuffix(name, "."+format) + "_" + safeName(rate) + "fps." + format
	}
	return name
}

// writeEditorialOn writes editorial output f with its clips' files on
// destination dest (an index in r.Destinations; -1: the first of the
// first run): a list written into a destination names the files on it.
func (r *Report) writeEditorialOn(w io.Writer, f string, dest int) error {
	format, rate, ok := editorialOf(f)
	switch {
	case !ok:
		return fmt.Errorf("%q is not an editorial list", f)
	case format == ALEFormat:
		return r.writeALEOn(w, rate, dest)
	case format == EDLFormat:
		return r.writeEDLOn(w, rate, dest)
	}
	return r.writeFCPXMLOn(w, rate, dest)
}

// WriteEDL writes the job's EDL of frame rate rate ("" when the job has
// one rate), the clips in the order of the ALE.
func (r *Report) WriteEDL(w io.Writer, rate string) error {
	return r.writeEDLOn(w, rate, -1)
}

func (r *Report) writeEDLOn(w io.Writer, rate string, dest int) error {
	f, err := r.editorialRate("EDL", rate, dest)
	if err != nil {
		return err
	}
	e := &edl.File{Title: r.Job.Name, FPS: f.rate}
	for i, row := range f.file.Rows {
		n, _ := strconv.Atoi(row["Frames"])
		e.Events = append(e.Events, edl.Event{Reel: row["Tape"], Name: row["Name"], SourceFile: row["Source File"],
			TCIn: row["Start"], Frames: n, Audio: f.clips[i].channels() > 0})
	}
	return edl.Write(w, e)
}

// WriteFCPXML writes the job's FCPXML of frame rate rate ("" when the job
// has one rate), the clips in the order of the ALE.
func (r *Report) WriteFCPXML(w io.Writer, rate string) error {
	return r.writeFCPXMLOn(w, rate, -1)
}

func (r *Report) writeFCPXMLOn(w io.Writer, rate string, dest int) error {
	f, err := r.editorialRate("FCPXML", rate, dest)
	if err != nil {
		return err
	}
	x := &fcpxml.File{Title: r.Job.Name, FPS: f.rate}
	for i, row := range f.file.Rows {
		n, _ := strconv.Atoi(row["Frames"])
		if x.Width == 0 {
			ws, hs, _ := strings.Cut(row["Resolution"], "x")
			x.Width, _ = strconv.Atoi(ws)
			x.Height, _ = strconv.Atoi(hs)
		}
		c := fcpxml.Clip{Name: row["Name"], SourceFile: row["Source File"], Proxy: row["Proxy File"], TCIn: row["Start"], Frames: n}
		if a := f.clips[i].Audio; a != nil && a.Channels > 0 {
			c.Audio, c.AudioChannels, c.AudioRate = true, a.Channels, a.Rate
		}
		x.Clips = append(x.Clips, c)
	}
	return fcpxml.Write(w, x)
}

// editorialRate is the job's ALE of frame rate rate with its files on
// destination dest, for another editorial list (what names it: "EDL",
// "FCPXML").
func (r *Report) editorialRate(what, rate string, dest int) (aleFile, error) {
	fs := r.aleFilesOn(dest)
	if len(fs) == 0 {
		return aleFile{}, fmt.Errorf("job %d has no clips: no %s", r.Job.ID, what)
	}
	if rate == "" && len(fs) > 1 {
		var rates []string
		for _, f := range fs {
			rates = append(rates, f.rate)
		}
		return aleFile{}, fmt.Errorf("job %d mixes frame rates (%s): one %s per rate (--format %s:RATE)", r.Job.ID, strings.Join(rates, ", "),
			what, strings.ToLower(what))
	}
	for _, f := range fs {
		if rate == "" || f.rate == rate {
			return f, nil
		}
	}
	return aleFile{}, fmt.Errorf("job %d has no clips at %s fps", r.Job.ID, rate)
}
