package jobreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/format/edl"
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
	fs := r.aleFiles()
	if len(fs) == 0 {
		return fmt.Errorf("job %d has no clips: no EDL", r.Job.ID)
	}
	if rate == "" && len(fs) > 1 {
		var rates []string
		for _, f := range fs {
			rates = append(rates, f.rate)
		}
		return fmt.Errorf("job %d mixes frame rates (%s): one EDL per rate (--format edl:RATE)", r.Job.ID, strings.Join(rates, ", "))
	}
	for _, f := range fs {
		if rate != "" && f.rate != rate {
			continue
		}
		e := &edl.File{Title: r.Job.Name, FPS: f.rate}
		for _, row := range f.file.Rows {
			n, _ := strconv.Atoi(row["Frames"])
			e.Events = append(e.Events, edl.Event{Reel: row["Tape"], Name: row["Name"], SourceFile: row["Source File"],
				TCIn: row["Start"], Frames: n})
		}
		return edl.Write(w, e)
	}
	return fmt.Errorf("job %d has no clips at %s fps", r.Job.ID, rate)
}
