package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/format/ale"
)

// probed is what ffprobe itself says of a clip, and what the reports
// should then say: its start timecode, the one after its last frame, its
// length as a timecode, its rate, codec (and the codec's profile) and
// resolution.
type probed struct {
	name, tcIn, tcOut, duration, fps, codecName, profile, res string
}

// tcClips are real clips of the four containers cameras write, each with
// a start timecode: DNxHD in an ARRI-named MXF (the file says DNxHD, not
// the family's ProRes), ProRes 422 HQ in a MOV, H.264 in an MP4, ProRes
// 4444 in an MXF (as an ALEXA Mini LF records it).
var tcClips = []struct {
	file string
	args []string
}{
	{"A001C001_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc=d=2:s=1920x1080:r=25", "-c:v", "dnxhd", "-b:v", "36M",
		"-pix_fmt", "yuv422p", "-timecode", "10:00:01:00"}},
	{"A001C002_230512_R2EC.mov", []string{"-f", "lavfi", "-i", "testsrc=d=1.5:s=640x360:r=24", "-c:v", "prores_ks", "-profile:v", "3",
		"-timecode", "01:02:03:04"}},
	{"A001C003_230512_R2EC.mp4", []string{"-f", "lavfi", "-i", "smptebars=d=2:s=640x360:r=25", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-timecode", "00:59:58:20"}},
	{"A001C004_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc2=d=2:s=640x360:r=24", "-c:v", "prores", "-profile:v", "4",
		"-pix_fmt", "yuv444p10le", "-timecode", "15:30:00:12"}},
}

// tcCard writes the clips into a card folder A001 and returns it with
// what ffprobe says of each.
func tcCard(t *testing.T, dir string) (string, []probed) {
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian: apt-get install ffmpeg)", tool)
		}
	}
	card := filepath.Join(dir, "cards", "A001")
	require.NoError(t, os.MkdirAll(card, 0o755))
	var want []probed
	for _, c := range tcClips {
		p := filepath.Join(card, c.file)
		out, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-nostdin"}, c.args...), p)...).CombinedOutput()
		require.NoError(t, err, string(out))
		want = append(want, ffprobeClip(t, p))
	}
	return card, want
}

// ffprobeClip asks ffprobe of the clip at p, the way a person checking
// the reports would, and works the timecodes out from its answer.
func ffprobeClip(t *testing.T, p string) probed {
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=codec_type,codec_name,profile,width,height,r_frame_rate,duration:stream_tags=timecode:format=duration:format_tags=timecode",
		"-of", "json", p).Output()
	require.NoError(t, err)
	var v struct {
		Streams []struct {
			Type string `json:"codec_type"`
			Name string `json:"codec_name"`
			Prof string `json:"profile"`
			W    int    `json:"width"`
			H    int    `json:"height"`
			Rate string `json:"r_frame_rate"`
			Tags map[string]string
		}
		Format struct {
			Duration string
			Tags     map[string]string
		}
	}
	require.NoError(t, json.Unmarshal(out, &v), string(out))
	k := probed{name: strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), tcIn: v.Format.Tags["timecode"]}
	var fps float64
	for _, s := range v.Streams {
		if k.tcIn == "" {
			k.tcIn = s.Tags["timecode"]
		}
		if s.Type == "video" && k.codecName == "" {
			k.codecName, k.profile, k.res = s.Name, s.Prof, fmt.Sprintf("%dx%d", s.W, s.H)
			n, d, _ := strings.Cut(s.Rate, "/")
			num, _ := strconv.ParseFloat(n, 64)
			den, _ := strconv.ParseFloat(d, 64)
			fps = num / den
		}
	}
	secs, _ := strconv.ParseFloat(v.Format.Duration, 64)
	require.NotEmpty(t, k.tcIn, "ffprobe reads a timecode in %s", p)
	base := int(math.Round(fps))
	frames := int(math.Round(secs * fps))
	k.fps = strconv.Itoa(base)
	tc := func(n int) string {
		return fmt.Sprintf("%02d:%02d:%02d:%02d", n/(3600*base), n/(60*base)%60, n/base%60, n%base)
	}
	var h, m, s, f int
	_, err = fmt.Sscanf(k.tcIn, "%d:%d:%d:%d", &h, &m, &s, &f)
	require.NoError(t, err, k.tcIn)
	k.tcOut = tc(((h*60+m)*60+s)*base + f + frames)
	k.duration = tc(frames)
	return k
}

// codecWord is the word of ffprobe's codec name the reports name it by.
var codecWord = map[string]string{"dnxhd": "DNxHD", "prores": "ProRes", "h264": "H.264"}

// Real MXF (DNxHD, ProRes), MOV and MP4 clips with timecode offloaded by
// the dit binary: dit job show --clips, the ALE, the HTML and the PDF
// give each clip's TC in, TC out, duration, rate, codec and resolution
// as ffprobe reads them.
func TestClipTimecodesMatchFFprobe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card, want := tcCard(t, dir)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "--ale", "-d", dest, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	r = e2e.Dit(t, db, "job", "show", "1", "--clips", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show struct {
		Cards []struct {
			Clips []struct {
				Name, Codec, Resolution, FPS string
				TCStart                      string `json:"tc_start"`
				TCEnd                        string `json:"tc_end"`
				Reel                         string
				Camera                       string
				Frames                       int
				SourceFile                   string `json:"source_file"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	require.Len(t, show.Cards, 1)
	got := show.Cards[0].Clips
	require.Len(t, got, len(want))
	for i, w := range want {
		k := got[i]
		require.Equal(t, w.name, k.Name)
		require.Equal(t, w.tcIn, k.TCStart, k.Name)
		require.Equal(t, w.tcOut, k.TCEnd, k.Name)
		require.Equal(t, w.fps, k.FPS, k.Name)
		require.Equal(t, w.res, k.Resolution, k.Name)
		require.Contains(t, k.Codec, codecWord[w.codecName], k.Name)
		if w.codecName == "prores" {
			require.Contains(t, k.Codec, " "+w.profile, "%s: the ProRes profile ffprobe reads", k.Name)
		}
	}
	r = e2e.Dit(t, db, "job", "show", "1", "--clips")
	require.Equal(t, 0, r.Code, r.Stderr)
	for i, w := range want {
		line := lineWith(r.Stdout, w.name)
		for _, s := range []string{w.tcIn, w.tcOut, w.duration, got[i].Codec, w.res} {
			require.Contains(t, line, s, "dit job show --clips:\n%s", r.Stdout)
		}
	}

	// The ALEs written with the reports (--ale), one per rate: what
	// the ale package's reader reads is what the clips say.
	reports := filepath.Join(dest, "day01", "reports")
	rows := map[string]map[string]string{}
	for _, rate := range []string{"25", "24"} {
		f, err := os.Open(filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps.ale"))
		require.NoError(t, err, r.Stdout)
		head, cols, data, err := ale.Read(f)
		f.Close()
		require.NoError(t, err)
		require.Equal(t, rate, head["FPS"])
		require.Equal(t, "TABS", head["FIELD_DELIM"])
		for _, vals := range data {
			row := map[string]string{}
			for i, v := range vals {
				row[cols[i]] = v
			}
			require.Equal(t, rate, row["FPS"])
			rows[row["Name"]] = row
		}
	}
	require.Len(t, rows, len(want))
	for i, w := range want {
		k, row := got[i], rows[w.name]
		require.Equal(t, map[string]string{"Name": w.name, "Tracks": "V", "Start": w.tcIn, "End": w.tcOut, "Duration": w.duration,
			"Tape": k.Reel, "Source File": filepath.Join(dest, "day01", "A001", k.SourceFile), "Camera": k.Camera,
			"Codec": k.Codec, "Resolution": w.res, "FPS": w.fps, "Camera Serial": "", "ISO": "", "White Balance": "", "Lens": "", "Card": "A001",
			"Frames": strconv.Itoa(k.Frames), "Verified": "yes", "Proxy File": ""}, row)
	}
	otioReads(t, reports, rows)
	// dit report --format ale: the job mixes rates, so --out is needed.
	r = e2e.Dit(t, db, "report", "1", "--format", "ale")
	require.Equal(t, 2, r.Code, r.Stdout)
	require.Contains(t, r.Stderr, "mixes frame rates (25, 24)")
	r = e2e.Dit(t, db, "report", "1", "--format", "ale", "--out", filepath.Join(dir, "day01.ale"))
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, rate := range []string{"25", "24"} {
		a, err := os.ReadFile(filepath.Join(dir, "day01_"+rate+"fps.ale"))
		require.NoError(t, err, r.Stdout)
		b, err := os.ReadFile(filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps.ale"))
		require.NoError(t, err)
		require.Equal(t, string(b), string(a))
	}

	html, err := os.ReadFile(filepath.Join(reports, "dit-report_job1_day01.html"))
	require.NoError(t, err)
	for i, w := range want {
		row := lineWith(string(html), `<td class="mono">`+w.name+`</td>`)
		for _, s := range []string{w.tcIn, w.tcOut, w.duration, ">" + w.fps + "<", got[i].Codec, w.res} {
			require.Contains(t, row, s, "the HTML row of %s", w.name)
		}
	}
	out, err := exec.Command("pdftotext", "-layout", filepath.Join(reports, "dit-report_job1_day01.pdf"), "-").Output()
	if err != nil {
		t.Skip("pdftotext not installed (Debian: poppler-utils)")
	}
	for _, w := range want {
		// A row's long cells wrap onto the lines above and below; TC in
		// is above TC out in its cell, the row's one-line cells between.
		lines := strings.Split(string(out), "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, w.tcIn) })
		require.Positive(t, i, "the PDF's row of %s:\n%s", w.name, out)
		row := strings.Join(lines[i-1:i+3], "\n")
		for _, s := range []string{w.name[:8], w.tcOut, w.duration, " " + w.fps + " ", codecWord[w.codecName], w.res} {
			require.Contains(t, row, s, "the PDF's row of %s:\n%s", w.name, out)
		}
	}
}

// lineWith is the first line of s that holds sub ("" when none does).
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// otioReads reads the job's ALEs with OpenTimelineIO's ALE adapter: each
// clip's name, start timecode, length in frames and source file are
// what dit wrote (rows, by name).
func otioReads(t *testing.T, reports string, rows map[string]map[string]string) {
	py := e2e.OTIOPython(t)
	script := `
import json, sys
import opentimelineio as otio
out = []
for p, rate in zip(sys.argv[1::2], sys.argv[2::2]):
    rate = float(rate)
    col = otio.adapters.read_from_file(p, adapter_name="ale")  # kept: its clips live in it
    for c in col:
        out.append({"name": c.name, "start": otio.opentime.to_timecode(c.source_range.start_time, rate),
            "frames": c.source_range.duration.to_frames(rate), "source": c.media_reference.target_url})
print(json.dumps(out))
`
	args := []string{"-c", script}
	for _, rate := range []string{"25", "24"} {
		args = append(args, filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps.ale"), rate)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	require.NoError(t, err, "OpenTimelineIO could not read the ALEs: %s", out)
	var got []struct {
		Name, Start, Source string
		Frames              int
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	require.Len(t, got, len(rows))
	for _, g := range got {
		row := rows[g.Name]
		require.NotNil(t, row, g.Name)
		require.Equal(t, row["Start"], g.Start, g.Name)
		require.Equal(t, row["Frames"], strconv.Itoa(g.Frames), g.Name)
		require.Equal(t, row["Source File"], g.Source, g.Name)
	}
}
