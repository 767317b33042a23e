package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The day's EDL, read back by OpenTimelineIO's CMX 3600 adapter (an
// independent reader): one clip per clip of the card, with its name, its
// source in point and length as ffprobe reads them, and a media
// reference to its copy, a file that exists (what relinks it).
func TestEDLReadByOpenTimelineIO(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card, want := tcCard(t, dir)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", dest+"/", card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	py := e2e.OTIOEDLPython(t)

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
			var h, m, s, f int
			_, err := fmt.Sscanf(w.duration, "%d:%d:%d:%d", &h, &m, &s, &f)
			require.NoError(t, err)
			base := map[string]int{"24": 24, "25": 25}[rate]
			require.Equal(t, ((h*60+m)*60+s)*base+f, got[i].Frames, w.name)
			require.FileExists(t, got[i].URL, "the EDL's source file of %s", w.name)
			require.Equal(t, filepath.Clean(got[i].URL), got[i].URL, "a clean path (no doubled slash)")
		}
	}
}
