package reports

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/internal/testneeds"
)

// familyClip is a clip of the family cards with the card it is on.
type familyClip struct {
	testcards.FamilyClip
	card string
}

// The four family cards (testcards.MakeFamilyCards: an ARRI MXF with
// two or four PCM tracks at 23.976, Sony XAVC with M01.XML at 29.97
// drop-frame, Blackmagic BRAW and ProRes at 25, a RED folder) offloaded
// in one job with --ale and ProRes proxies: the ALE, EDL and FCPXML of
// each rate are written with the job's reports, and OpenTimelineIO's
// readers find in them the right clips, timecodes, lengths, tracks and
// paths of copies and proxies that exist (a proxy named after its clip,
// what relinks it); the reports say where a sidecar and the media
// disagreed.
func TestFamilyCardsEditorialLists(t *testing.T) {
	ffmpeg := testneeds.Tool(t, "ffmpeg", "Debian: apt-get install ffmpeg")
	testneeds.Tool(t, "ffprobe", "Debian: apt-get install ffmpeg")
	dir := t.TempDir()
	cards, err := testcards.MakeFamilyCards(context.Background(), ffmpeg, filepath.Join(dir, "cards"))
	require.NoError(t, err)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	args := []string{"offload", "--name", "day01", "--ale", "--proxies", "prores-proxy", "-d", dest}
	var all []familyClip
	for _, c := range cards {
		args = append(args, c.Path)
		for _, k := range c.Clips {
			all = append(all, familyClip{k, c.Label})
		}
	}
	db := filepath.Join(dir, "catalog.db")
	r := e2e.Dit(t, db, args...)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	reports := filepath.Join(dest, "day01", "reports")
	// One list of each kind per rate (the RED clip, of no known rate,
	// in the first ALE only: nothing places it on a timeline).
	rates := []string{"23.976", "29.97", "25"}
	for _, rate := range rates {
		for _, ext := range []string{"ale", "edl", "fcpxml"} {
			require.FileExists(t, filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps."+ext), r.Stdout)
		}
	}
	checkFamilyALEs(t, reports, dest, rates, all)
	checkFamilyEDLs(t, reports, rates, all)
	checkFamilyConflicts(t, reports)
	checkFamilyPDFFigures(t, reports, len(all))
}

// checkFamilyPDFFigures: every clip's TC in, TC out, duration and frame
// rate in the clip sheet (23.976, 29.97 drop-frame with its ';', 25) is
// one whole word of the PDF's text (pdftotext): never "29.9" and "7",
// nor a timecode cut over two lines.
func checkFamilyPDFFigures(t *testing.T, reports string, clips int) {
	f, err := os.Open(filepath.Join(reports, "dit-report_job1_day01_clips.csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, clips+1)
	text, err := exec.Command("pdftotext", "-raw", filepath.Join(reports, "dit-report_job1_day01.pdf"), "-").Output()
	if err != nil {
		t.Skip("pdftotext not installed (Debian: poppler-utils)")
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(string(text)) {
		words[w] = true
	}
	n := 0
	for _, rec := range recs[1:] {
		for _, col := range []string{"start", "end", "duration", "fps"} {
			v := rec[slices.Index(recs[0], col)]
			if v == "" {
				continue // a RED clip's: nothing reads it
			}
			n++
			require.True(t, words[v], "%s's %s %q whole in the PDF's text:\n%s", rec[1], col, v, text)
		}
	}
	require.GreaterOrEqual(t, n, 4*(clips-1), "every clip but the RED one has its four figures")
}

// rateOf is the rate of the list a clip is in: its own, the first
// list's when it has none.
func rateOf(k familyClip, rates []string) string {
	if k.FPS == "" {
		return rates[0]
	}
	return k.FPS
}

// wantTracks are Avid's Tracks of a clip with picture and n channels.
func wantTracks(n int) string {
	s := "V"
	for i := 1; i <= n; i++ {
		s += fmt.Sprintf("A%d", i)
	}
	return s
}

// checkFamilyALEs reads the job's ALEs with OpenTimelineIO's ALE
// adapter: every clip once, in the ALE of its rate, with its start
// timecode, length, Tracks (its media's audio channels; V where nothing
// read them), source file (its copy, which exists) and proxy (made
// from every movie, named after its clip, which exists).
func checkFamilyALEs(t *testing.T, reports, dest string, rates []string, all []familyClip) {
	py := e2e.OTIOPython(t)
	script := `
import json, sys
import opentimelineio as otio
out = []
for p, rate in zip(sys.argv[1::2], sys.argv[2::2]):
    col = otio.adapters.read_from_file(p, adapter_name="ale")  # kept: its clips live in it
    for c in col:
        r = {"rate": rate, "name": c.name, "meta": dict(c.metadata["ALE"]), "source": c.media_reference.target_url}
        if c.source_range is not None:
            st = c.source_range.start_time  # at the ALE's own rate (23.976: 24000/1001)
            r["start"] = otio.opentime.to_timecode(st, st.rate)
            r["frames"] = int(round(c.source_range.duration.to_frames(st.rate)))
        out.append(r)
print(json.dumps(out))
`
	args := []string{"-c", script}
	for _, rate := range rates {
		args = append(args, filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps.ale"), rate)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	require.NoError(t, err, "OpenTimelineIO could not read the ALEs: %s", out)
	var got []struct {
		Rate, Name, Source, Start string
		Frames                    int
		Meta                      map[string]string
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	require.Len(t, got, len(all), string(out))
	byName := map[string]int{}
	for i, g := range got {
		byName[g.Name] = i
	}
	for _, k := range all {
		i, ok := byName[k.Name]
		require.True(t, ok, "%s in no ALE: %s", k.Name, out)
		g := got[i]
		require.Equal(t, rateOf(k, rates), g.Rate, k.Name)
		require.Equal(t, k.TCIn, g.Start, k.Name)
		require.Equal(t, k.Frames, g.Frames, k.Name)
		require.Equal(t, filepath.Join(dest, "day01", k.card, filepath.FromSlash(k.Media)), g.Source, k.Name)
		require.FileExists(t, g.Source)
		require.Equal(t, wantTracks(max(k.Channels, 0)), g.Meta["Tracks"], k.Name)
		proxy := g.Meta["Proxy File"]
		if !k.Movie {
			require.Empty(t, proxy, "%s: no proxy of what ffmpeg cannot read", k.Name)
			continue
		}
		require.FileExists(t, proxy, k.Name)
		require.Equal(t, k.Name, strings.TrimSuffix(filepath.Base(proxy), filepath.Ext(proxy)), "a proxy named after its clip")
		require.True(t, strings.HasPrefix(proxy, filepath.Join(dest, "proxies")+string(filepath.Separator)), proxy)
	}
}

// checkFamilyEDLs reads the job's EDLs and FCPXMLs with OpenTimelineIO's
// CMX 3600 and FCPXML adapters: the placed clips of each rate (those
// with a timecode) in order, each with its start timecode and length;
// the EDL's media reference and the FCPXML's original and proxy media
// are files that exist; the FCPXML says the channels of a clip with
// sound.
func checkFamilyEDLs(t *testing.T, reports string, rates []string, all []familyClip) {
	py := e2e.OTIOEditorialPython(t)
	script := `
import json, sys
import opentimelineio as otio
out = []
for p, rate in zip(sys.argv[1::2], sys.argv[2::2]):
    if p.endswith(".edl"):
        # An EDL does not say its rate: the reader is told (23.976 is
        # 24000/1001). A clip with sound (track B) is on the video and
        # the audio track: its video track's.
        smpte = otio.opentime.RationalTime.nearest_smpte_timecode_rate(float(rate))
        doc = otio.adapters.read_from_file(p, adapter_name="cmx_3600", rate=smpte)
        clips = [c for tr in doc.video_tracks() for c in tr.find_clips()]
    else:
        doc = otio.adapters.read_from_file(p, adapter_name="fcpx_xml")
        clips = doc.find_clips()
    for c in clips:  # doc kept: its clips live in it
        st = c.source_range.start_time  # at the list's own rate (23.976: 24000/1001)
        out.append({"file": p, "name": c.name, "in": otio.opentime.to_timecode(st, st.rate),
            "frames": int(round(c.source_range.duration.to_frames(st.rate))),
            "url": getattr(c.media_reference, "target_url", "")})
print(json.dumps(out))
`
	args := []string{"-c", script}
	for _, rate := range rates {
		for _, ext := range []string{"edl", "fcpxml"} {
			args = append(args, filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps."+ext), rate)
		}
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	require.NoError(t, err, "OpenTimelineIO could not read the EDLs and FCPXMLs: %s", out)
	var got []struct {
		File, Name, In, URL string
		Frames              int
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	for _, rate := range rates {
		var want []familyClip
		for _, k := range all {
			if k.FPS == rate && k.TCIn != "" {
				want = append(want, k)
			}
		}
		for _, ext := range []string{"edl", "fcpxml"} {
			p := filepath.Join(reports, "dit-report_job1_day01_"+rate+"fps."+ext)
			var in []int
			for i, g := range got {
				if g.File == p {
					in = append(in, i)
				}
			}
			require.Len(t, in, len(want), "%s: %s", p, out)
			for j, k := range want {
				g := got[in[j]]
				require.Equal(t, k.Name, g.Name, p)
				if ext == "fcpxml" && strings.Contains(rate, ".") {
					// OpenTimelineIO's FCPXML adapter (1.0.0) takes a
					// format's rate as a whole number (int(24000/1001):
					// 23): at 23.976 and 29.97 its times are wrong, and
					// checkFamilyFCPXMLMedia reads them from the file.
					continue
				}
				require.Equal(t, k.TCIn, g.In, "%s in %s", k.Name, p)
				require.Equal(t, k.Frames, g.Frames, "%s in %s", k.Name, p)
				if ext == "edl" {
					require.FileExists(t, g.URL, "the EDL's source file of %s", k.Name)
				}
			}
			if ext == "fcpxml" {
				checkFamilyFCPXMLMedia(t, p, rate, want)
			}
		}
	}
}

// checkFamilyFCPXMLMedia reads the FCPXML's assets: each clip's start
// and duration are its start timecode's frame count and its length in
// frames of the format's frame duration (1001/24000 s at 23.976,
// drop-frame counted at 29.97); its original media and proxy (a
// movie's) are file:// URLs of files that exist, the proxy named after
// the clip; a clip with sound says its channels.
func checkFamilyFCPXMLMedia(t *testing.T, p, rate string, want []familyClip) {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var doc struct {
		Format struct {
			FrameDuration string `xml:"frameDuration,attr"`
		} `xml:"resources>format"`
		Assets []struct {
			Name     string `xml:"name,attr"`
			Start    string `xml:"start,attr"`
			Duration string `xml:"duration,attr"`
			HasAudio string `xml:"hasAudio,attr"`
			Channels string `xml:"audioChannels,attr"`
			Reps     []struct {
				Kind string `xml:"kind,attr"`
				Src  string `xml:"src,attr"`
			} `xml:"media-rep"`
		} `xml:"resources>asset"`
		Sequence struct {
			TCStart string         `xml:"tcStart,attr"`
			Clips   []fcpSpineClip `xml:"spine>asset-clip"`
		} `xml:"library>event>project>sequence"`
	}
	require.NoError(t, xml.Unmarshal(b, &doc))
	require.Len(t, doc.Assets, len(want))
	fd := map[string]string{"23.976": "1001/24000s", "25": "100/2500s", "29.97": "1001/30000s"}[rate]
	require.Equal(t, fd, doc.Format.FrameDuration)
	num, den := fraction(t, fd)
	for i, k := range want {
		a := doc.Assets[i]
		require.Equal(t, k.Name, a.Name)
		base := int(math.Round(float64(den) / float64(num)))
		sn, sd := fraction(t, a.Start)
		dn, dd := fraction(t, a.Duration)
		require.Equal(t, tcFrames(t, k.TCIn, base)*num*sd, sn*den, "%s: start %s is %s at %s", k.Name, a.Start, k.TCIn, rate)
		require.Equal(t, k.Frames*num*dd, dn*den, "%s: duration %s is %d frames at %s", k.Name, a.Duration, k.Frames, rate)
		kinds := map[string]string{}
		for _, rep := range a.Reps {
			u, err := url.Parse(rep.Src)
			require.NoError(t, err)
			require.Equal(t, "file", u.Scheme, rep.Src)
			require.FileExists(t, u.Path, "%s's %s", k.Name, rep.Kind)
			kinds[rep.Kind] = u.Path
		}
		require.Contains(t, kinds, "original-media", k.Name)
		if k.Movie {
			px := kinds["proxy-media"]
			require.Equal(t, k.Name, strings.TrimSuffix(filepath.Base(px), filepath.Ext(px)), "%s's proxy", k.Name)
		}
		if k.Channels > 0 {
			require.Equal(t, []string{"1", fmt.Sprint(k.Channels)}, []string{a.HasAudio, a.Channels}, k.Name)
		} else {
			require.Empty(t, a.HasAudio, k.Name)
		}
	}
	checkFamilyFCPXMLSpine(t, rate, fd, want, doc.Sequence.TCStart, doc.Sequence.Clips)
}

// fcpSpineClip is an asset-clip of an FCPXML project's spine.
type fcpSpineClip struct {
	Name     string `xml:"name,attr"`
	Offset   string `xml:"offset,attr"`
	Start    string `xml:"start,attr"`
	Duration string `xml:"duration,attr"`
	TCFormat string `xml:"tcFormat,attr"`
}

// checkFamilyFCPXMLSpine reads the project's timeline as dit wrote it
// (what OpenTimelineIO's reader cannot at 23.976 and 29.97): the clips
// back to back from 01:00:00:00 (01:00:00;00 drop-frame), each placed
// (offset) where the ones before it end, starting at its own start
// timecode, as long as its frames, drop-frame said where its timecode
// is.
func checkFamilyFCPXMLSpine(t *testing.T, rate, fd string, want []familyClip, tcStart string, spine []fcpSpineClip) {
	num, den := fraction(t, fd)
	base := int(math.Round(float64(den) / float64(num)))
	require.Len(t, spine, len(want))
	// at: the rational time v ("N/Ds") is frames frame durations
	// (num/den s each): N/D == frames*num/den.
	at := func(what, v string, frames int) {
		n, d := fraction(t, v)
		require.Equal(t, frames*num*d, n*den, "%s at %s: %s is %d frames", what, rate, v, frames)
	}
	head := "01:00:00:00"
	if strings.Contains(want[0].TCIn, ";") {
		head = "01:00:00;00"
	}
	pos := tcFrames(t, head, base)
	at("the sequence's start", tcStart, pos)
	for i, k := range want {
		c := spine[i]
		require.Equal(t, k.Name, c.Name)
		at(k.Name+"'s offset", c.Offset, pos)
		at(k.Name+"'s start", c.Start, tcFrames(t, k.TCIn, base))
		at(k.Name+"'s duration", c.Duration, k.Frames)
		df := "NDF"
		if strings.Contains(k.TCIn, ";") {
			df = "DF"
		}
		require.Equal(t, df, c.TCFormat, k.Name)
		pos += k.Frames
	}
}

// fraction reads FCPXML's rational time "N/Ds" (or "Ns").
func fraction(t *testing.T, v string) (num, den int) {
	n, d, ok := strings.Cut(strings.TrimSuffix(v, "s"), "/")
	if !ok {
		d = "1"
	}
	num, err1 := strconv.Atoi(n)
	den, err2 := strconv.Atoi(d)
	require.NoError(t, errors.Join(err1, err2), v)
	return num, den
}

// tcFrames is timecode tc's frame count at base frames a second,
// drop-frame (two frame numbers skipped each minute but every tenth)
// when tc says so with ';'.
func tcFrames(t *testing.T, tc string, base int) int {
	var h, m, s, f int
	_, err := fmt.Sscanf(strings.ReplaceAll(tc, ";", ":"), "%d:%d:%d:%d", &h, &m, &s, &f)
	require.NoError(t, err, tc)
	n := ((h*60+m)*60+s)*base + f
	if strings.Contains(tc, ";") {
		mins := h*60 + m
		n -= 2 * (mins - mins/10)
	}
	return n
}

// checkFamilyConflicts: the Sony clip whose M01.XML says 60 frames and 4
// channels (the file: 48 and 2) is listed under its card's clips in the
// HTML and the PDF, and in the clip sheet's conflicts column.
func checkFamilyConflicts(t *testing.T, reports string) {
	want := []string{"C0001: audio channels: sidecar 4, media 2 (the media's kept)", "C0001: frames: sidecar 60, media 48 (the media's kept)"}
	html, err := os.ReadFile(filepath.Join(reports, "dit-report_job1_day01.html"))
	require.NoError(t, err)
	require.Contains(t, string(html), "Media and sidecar disagree")
	for _, w := range want {
		require.Contains(t, string(html), "<li>"+strings.ReplaceAll(w, "'", "&#39;")+"</li>")
	}
	f, err := os.Open(filepath.Join(reports, "dit-report_job1_day01_clips.csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	n := 0
	for _, rec := range recs[1:] {
		c := rec[len(rec)-1]
		if rec[1] == "C0001" {
			require.Equal(t, strings.TrimPrefix(want[0], "C0001: ")+"; "+strings.TrimPrefix(want[1], "C0001: "), c)
		}
		if c != "" {
			n++
		}
	}
	require.Equal(t, 1, n, "one clip disagrees with its sidecar")
	text, err := exec.Command("pdftotext", "-raw", filepath.Join(reports, "dit-report_job1_day01.pdf"), "-").Output()
	if err != nil {
		t.Skip("pdftotext not installed (Debian: poppler-utils)")
	}
	for _, w := range want {
		require.Contains(t, string(text), w)
	}
}
