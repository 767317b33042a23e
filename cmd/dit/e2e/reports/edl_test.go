package reports

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The day's EDL and FCPXML, read back by OpenTimelineIO's CMX 3600 and
// FCPXML adapters (independent readers): one clip per clip of the card,
// with its name, its source in point and length as ffprobe reads them,
// and a media reference to its copy, a file that exists (what relinks
// it).
func TestEDLAndFCPXMLReadByOpenTimelineIO(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card, want := tcCard(t, dir)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", dest+"/", card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	py := e2e.OTIOEditorialPython(t)

	// The card mixes 25 and 24 fps: one EDL per rate.
	byRate := map[string][]probed{}
	for _, w := range want {
		byRate[w.fps] = append(byRate[w.fps], w)
	}
	for rate, clips := range byRate {
		p := filepath.Join(dir, "day01_"+rate+".edl")
		r = e2e.Dit(t, db, "report", "1", "--format", "edl:"+rate, "--out", p)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		out, err := exec.Command(py, "-c", `
import json, sys
import opentimelineio as otio
tl = otio.adapters.read_from_file(sys.argv[1], adapter_name="cmx_3600", rate=float(sys.argv[2]))
rows = []
for c in tl.find_clips():
    rows.append({"name": c.name, "in": otio.opentime.to_timecode(c.source_range.start_time, float(sys.argv[2])),
        "frames": int(round(c.source_range.duration.to_frames())), "url": getattr(c.media_reference, "target_url", "")})
print(json.dumps(rows))
`, p, rate).CombinedOutput()
		require.NoError(t, err, string(out))
		var got []struct {
			Name, In, URL string
			Frames        int
		}
		require.NoError(t, json.Unmarshal(out, &got), string(out))
		require.Len(t, got, len(clips), string(out))
		for i, w := range clips {
			require.Equal(t, w.name, got[i].Name)
			require.Equal(t, w.tcIn, got[i].In, w.name)
			require.Equal(t, frameCount(t, w.duration, rate), got[i].Frames, w.name)
			require.FileExists(t, got[i].URL, "the EDL's source file of %s", w.name)
			require.Equal(t, filepath.Clean(got[i].URL), got[i].URL, "a clean path (no doubled slash)")
		}
		checkFCPXML(t, py, dir, rate, clips)
	}
}

// checkFCPXML has dit write the day's FCPXML at rate and reads it back
// with OpenTimelineIO's FCPXML adapter: the clips, their start timecodes
// and lengths. The adapter reads a media link only from FCPXML 1.8's
// asset src (1.10 has it in media-rep): that link is read here, and
// must be a file:// URL of the copy, which exists.
func checkFCPXML(t *testing.T, py, dir, rate string, clips []probed) {
	p := filepath.Join(dir, "day01_"+rate+".fcpxml")
	r := e2e.Dit(t, filepath.Join(dir, "catalog.db"), "report", "1", "--format", "fcpxml:"+rate, "--out", p)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	out, err := exec.Command(py, "-c", `
import json, sys
import opentimelineio as otio
col = otio.adapters.read_from_file(sys.argv[1], adapter_name="fcpx_xml")
rows = []
for c in col.find_clips():
    rate = c.source_range.start_time.rate
    rows.append({"name": c.name, "in": otio.opentime.to_timecode(c.source_range.start_time, rate),
        "frames": int(round(c.source_range.duration.to_frames()))})
print(json.dumps(rows))
`, p).CombinedOutput()
	require.NoError(t, err, string(out))
	var got []struct {
		Name, In string
		Frames   int
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	// The project's clips (the adapter reads the project, not the
	// event's browser clips).
	require.Len(t, got, len(clips), string(out))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var doc struct {
		Assets []struct {
			Name string `xml:"name,attr"`
			Rep  struct {
				Src string `xml:"src,attr"`
			} `xml:"media-rep"` // the first: original-media
		} `xml:"resources>asset"`
	}
	require.NoError(t, xml.Unmarshal(b, &doc))
	require.Len(t, doc.Assets, len(clips))
	for i, w := range clips {
		require.Equal(t, w.name, got[i].Name)
		require.Equal(t, w.tcIn, got[i].In, w.name)
		require.Equal(t, frameCount(t, w.duration, rate), got[i].Frames, w.name)
		u, err := url.Parse(doc.Assets[i].Rep.Src)
		require.NoError(t, err)
		require.Equal(t, "file", u.Scheme, doc.Assets[i].Rep.Src)
		require.FileExists(t, u.Path, "the FCPXML's media of %s", w.name)
		require.Equal(t, w.name, strings.TrimSuffix(filepath.Base(u.Path), filepath.Ext(u.Path)))
	}
}

// frameCount is a duration timecode's frames at a whole rate.
func frameCount(t *testing.T, tc, rate string) int {
	var h, m, s, f int
	_, err := fmt.Sscanf(tc, "%d:%d:%d:%d", &h, &m, &s, &f)
	require.NoError(t, err)
	base, err := strconv.Atoi(rate)
	require.NoError(t, err)
	return ((h*60+m)*60+s)*base + f
}
