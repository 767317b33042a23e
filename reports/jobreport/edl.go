package jobreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/format/edl"
	"github.com/dit-org/dit/internal/format/fcpxml"
)

// EDLFormat names the job's CMX 3600 EDL in [Report.Write] and dit
// report --format: the day's clips back to back, each with its reel,
// clip name and source file (as the ALE's Source File: a path to open)
// for the editing suite to relink; "edl:RATE" for one rate of a job
// that mixes them.
const EDLFormat = "edl"

// WriteEDL writes the job's EDL of frame rate rate ("" when the job has
// one rate), the clips in the order of the ALE.
func (r *Report) WriteEDL(w io.Writer, rate string) error {
	f, err := r.editorialRate("EDL", rate)
	if err != nil {
		return err
	}
	e := &edl.File{Title: r.Job.Name, FPS: f.rate}
	for _, row := range f.file.Rows {
		n, _ := strconv.Atoi(row["Frames"])
		e.Events = append(e.Events, edl.Event{Reel: row["Tape"], Name: row["Name"], SourceFile: row["Source File"],
			TCIn: row["Start"], Frames: n})
	}
	return edl.Write(w, e)
}

// FCPXMLFormat names the job's FCPXML (1.10) in [Report.Write] and dit
// report --format: the day's clips as assets linked to their copies (the
// ALE's Source File), in an event and a project with them back to back;
// "fcpxml:RATE" for one rate of a job that mixes them.
const FCPXMLFormat = "fcpxml"

// WriteFCPXML writes the job's FCPXML of frame rate rate ("" when the job
// has one rate), the clips in the order of the ALE.
func (r *Report) WriteFCPXML(w io.Writer, rate string) error {
	f, err := r.editorialRate("FCPXML", rate)
	if err != nil {
		return err
	}
	x := &fcpxml.File{Title: r.Job.Name, FPS: f.rate}
	for _, row := range f.file.Rows {
		n, _ := strconv.Atoi(row["Frames"])
		if x.Width == 0 {
			ws, hs, _ := strings.Cut(row["Resolution"], "x")
			x.Width, _ = strconv.Atoi(ws)
			x.Height, _ = strconv.Atoi(hs)
		}
		x.Clips = append(x.Clips, fcpxml.Clip{Name: row["Name"], SourceFile: row["Source File"], Proxy: row["Proxy File"],
			TCIn: row["Start"], Frames: n})
	}
	return fcpxml.Write(w, x)
}

// editorialRate is the job's ALE of frame rate rate, for another
// editorial list (what names it: "EDL", "FCPXML").
func (r *Report) editorialRate(what, rate string) (aleFile, error) {
	fs := r.aleFilesOn(-1)
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
