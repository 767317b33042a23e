package jobreport

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/format/ale"
	"github.com/dit-org/dit/internal/offload"
)

// ALEFormat names the job's Avid Log Exchange file in [Report.Write] and
// dit report --format; a job that mixes frame rates has one ALE per rate,
// named "ale:25", "ale:23.976" ([Report.ALEOutputs]).
const ALEFormat = "ale"

// ALEColumns are the columns of the job's ALE: Avid's own (Name to Source
// File; Tracks V and one A per audio channel the media has, VA1A2, "V"
// when nothing read its sound), then custom columns Avid and Resolve
// import as clip metadata (ISO, White Balance and Lens: what the camera
// was set to, where its sidecar said it);
// Proxy File is the clip's editorial proxy (dit offload --proxies), named
// after the clip so a relink by source file name finds it, on the same
// destination as Source File when it is there.
var ALEColumns = []string{"Name", "Tracks", "Start", "End", "Duration", "Tape", "Source File", "Camera", "Codec",
	"Resolution", "FPS", "Camera Serial", "ISO", "White Balance", "Lens", "Card", "Frames", "Verified", "Proxy File"}

// aleFile is one ALE of the job: the clips of one frame rate (clips[i]
// is the clip of row i).
type aleFile struct {
	rate  string
	file  *ale.File
	clips []*Clip
}

// ALEOutputs are the formats of the job's ALE files: "ale" when every
// clip has one rate (or none is known), else "ale:RATE" per rate, in the
// order of the clips; none without clips.
func (r *Report) ALEOutputs() []string {
	fs := r.aleFilesOn(-1)
	if len(fs) == 1 {
		return []string{ALEFormat}
	}
	var out []string
	for _, f := range fs {
		out = append(out, ALEFormat+":"+f.rate)
	}
	return out
}

// WriteALE writes the job's ALE of frame rate rate ("" when the job has
// one ALE; see [Report.ALEOutputs]).
func (r *Report) WriteALE(w io.Writer, rate string) error {
	return r.writeALEOn(w, rate, -1)
}

// writeALEOn is WriteALE with each clip's Source File on destination
// dest (an index in r.Destinations; -1: the first of the first run): the
// ALE written into a destination names the files on it.
func (r *Report) writeALEOn(w io.Writer, rate string, dest int) error {
	fs := r.aleFilesOn(dest)
	if len(fs) == 0 {
		return fmt.Errorf("job %d has no clips: no ALE", r.Job.ID)
	}
	if rate == "" {
		if len(fs) > 1 {
			var rates []string
			for _, f := range fs {
				rates = append(rates, f.rate)
			}
			return fmt.Errorf("job %d mixes frame rates (%s): one ALE per rate", r.Job.ID, strings.Join(rates, ", "))
		}
		return ale.Write(w, fs[0].file)
	}
	for _, f := range fs {
		if f.rate == rate {
			return ale.Write(w, f.file)
		}
	}
	return fmt.Errorf("job %d has no clips at %s fps", r.Job.ID, rate)
}

// aleFilesOn are the job's ALEs, one per frame rate in the order of the
// clips, their Source Files on destination dest (-1: the first of the
// first run); a clip whose rate is unknown (it has no timecode either)
// goes with the first rate.
func (r *Report) aleFilesOn(dest int) []aleFile {
	var rows []map[string]string
	var ks []*Clip
	for i := range r.Cards {
		c := &r.Cards[i]
		for j := range c.Clips {
			rows = append(rows, r.aleRow(c, &c.Clips[j], dest))
			ks = append(ks, &c.Clips[j])
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rates, groups := ale.Split(rows, "FPS")
	// The clips of each group, in the same order as its rows.
	at := map[string]int{}
	for i, rate := range rates {
		at[rate] = i
	}
	clipsOf := make([][]*Clip, len(rates))
	for i, row := range rows {
		g := at[row["FPS"]]
		clipsOf[g] = append(clipsOf[g], ks[i])
	}
	var out []aleFile
	var unknown []map[string]string
	var unknownClips []*Clip
	for i, rate := range rates {
		if rate == "" && len(rates) > 1 {
			unknown, unknownClips = groups[i], clipsOf[i]
			continue
		}
		out = append(out, aleFile{rate: rate, file: &ale.File{FPS: rate, Columns: ALEColumns, Rows: groups[i]}, clips: clipsOf[i]})
	}
	out[0].file.Rows = append(out[0].file.Rows, unknown...)
	out[0].clips = append(out[0].clips, unknownClips...)
	for _, f := range out {
		f.file.VideoFormat = ale.VideoFormat(f.file.Rows[0]["Resolution"])
	}
	return out
}

// aleRow is clip k of card c as an ALE row.
func (r *Report) aleRow(c *Card, k *Clip, dest int) map[string]string {
	tape := k.Reel
	if tape == "" {
		tape = c.Label
	}
	dur, frames := "", ""
	if base := clips.TCBase(k.FPS); base > 0 && k.Frames > 0 {
		dur = clips.FramesTC(k.Frames, base, strings.Contains(k.TCStart, ";"))
		frames = strconv.Itoa(k.Frames)
	}
	verified := "no"
	if k.Verified {
		verified = "yes"
	}
	return map[string]string{"Name": k.Name, "Tracks": ale.Tracks(k.channels()), "Start": k.TCStart, "End": k.TCEnd, "Duration": dur,
		"Tape": tape, "Source File": r.sourcePath(c, k.SourceFile, dest), "Camera": k.Camera, "Codec": k.Codec,
		"Resolution": k.Resolution, "FPS": k.FPS, "Camera Serial": k.Serial, "ISO": k.ISO, "White Balance": k.WhiteBalance, "Lens": k.Lens,
		"Card": c.Label, "Frames": frames,
		"Verified": verified, "Proxy File": r.proxyFor(c, k.Name, dest)}
}

// channels are the clip's audio channels: 0 when it has no sound, or
// when nothing read its sound (a format ffprobe cannot read, a clip of a
// catalog older than its schema version 25).
func (k *Clip) channels() int {
	if k.Audio == nil {
		return 0
	}
	return k.Audio.Channels
}

// sourcePath is where file rel of card c is on destination dest (-1:
// the job's first destination of the first run), as a path to open (on
// a dit array: below the array's mount point or mount place,
// raid/mountplace); rel itself when the job has none or the layout
// cannot be expanded.
func (r *Report) sourcePath(c *Card, rel string, dest int) string {
	if rel == "" {
		return ""
	}
	dir, err := offload.ExpandLayout(r.Job.Layout, r.Job.Name, c.Label, r.Job.Started)
	if err != nil {
		return rel
	}
	if dest >= 0 && dest < len(r.Destinations) {
		return r.openPath(r.Destinations[dest].Path, path.Join(dir, rel))
	}
	for _, d := range r.Destinations {
		if d.Run == 2 {
			continue
		}
		return r.openPath(d.Path, path.Join(dir, rel))
	}
	return rel
}

// proxyFor is the path of clip name's proxy that was made, on destination
// dest (-1: the first of the first run) when it is there, else on the
// first destination that has it; "" when none was made.
func (r *Report) proxyFor(c *Card, name string, dest int) string {
	want := ""
	if dest >= 0 && dest < len(r.Destinations) {
		want = r.Destinations[dest].Path
	} else {
		for _, d := range r.Destinations {
			if d.Run != 2 {
				want = d.Path
				break
			}
		}
	}
	other := ""
	for _, p := range c.Proxies {
		if p.Clip != name || p.State != "made" || p.Path == "" || cloud.IsDest(p.Dest) {
			continue
		}
		if p.Dest == want {
			return p.Path
		}
		if other == "" {
			other = p.Path
		}
	}
	return other
}
