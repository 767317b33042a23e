package proxies

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/format/ale"
)

// srcClip is a real clip made by ffmpeg, with a start timecode.
type srcClip struct {
	file string
	args []string
}

// unicodeName is a clip's name in CJK, emoji, NFD (e + combining acute)
// and the punctuation a filter graph treats specially.
const unicodeName = "場景 🎬 Cafe\u0301, take [2]; 'x'"

var srcClips = []srcClip{
	// DNxHD in an MXF with timecode 10:00:01:00, and sound. (Small and
	// short, as the others: what a proxy keeps of it does not depend on
	// its size, and every test encodes it several times.)
	{"A001C001_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc=d=1:s=640x360:r=25", "-f", "lavfi", "-i", "sine=d=1",
		"-c:v", "dnxhd", "-profile:v", "dnxhr_sq", "-pix_fmt", "yuv422p", "-c:a", "pcm_s16le", "-ar", "48000", "-timecode", "10:00:01:00"}},
	{"A001C002_230512_R2EC.mov", []string{"-f", "lavfi", "-i", "testsrc=d=1.5:s=640x360:r=24", "-c:v", "prores_ks", "-profile:v", "3",
		"-timecode", "01:02:03:04"}},
	{"A001C003_230512_R2EC.mp4", []string{"-f", "lavfi", "-i", "smptebars=d=2:s=640x360:r=25", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-timecode", "00:59:58:20"}},
	{unicodeName + ".mov", []string{"-f", "lavfi", "-i", "testsrc2=d=1:s=640x360:r=30000/1001", "-c:v", "prores_ks",
		"-timecode", "23:59:59;28"}},
}

// badClip is a MOV ffmpeg cannot read: a QuickTime header and noise.
const badClip = "A001C005_230512_R2EC.mov"

func tools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian: apt-get install ffmpeg)", tool)
		}
	}
}

// clips are the card's files, made once by ffmpeg for all the
// package's tests (removed by TestMain after them): each test copies
// them into a card of its own.
var clips struct {
	once sync.Once
	dir  string
	err  error
}

// makeClips writes the clips and the unreadable one into a new folder.
func makeClips() (string, error) {
	dir, err := os.MkdirTemp("", "dit-proxies-clips-")
	if err != nil {
		return "", err
	}
	for _, c := range srcClips {
		out, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-nostdin"}, c.args...), filepath.Join(dir, c.file))...).CombinedOutput()
		if err != nil {
			return dir, fmt.Errorf("ffmpeg %s: %v\n%s", c.file, err, out)
		}
	}
	noise := make([]byte, 64<<10)
	for i := range noise {
		noise[i] = byte(i*7 + i/13)
	}
	return dir, os.WriteFile(filepath.Join(dir, badClip), append([]byte("\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00"), noise...), 0o644)
}

// makeCard writes the clips into dir/cards/A001.
func makeCard(t *testing.T, dir string) string {
	tools(t)
	clips.once.Do(func() { clips.dir, clips.err = makeClips() })
	require.NoError(t, clips.err)
	card := filepath.Join(dir, "cards", "A001")
	require.NoError(t, os.MkdirAll(card, 0o755))
	ents, err := os.ReadDir(clips.dir)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(clips.dir, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(card, e.Name()), b, 0o644))
	}
	return card
}

// probed is what ffprobe says of a movie.
type probed struct {
	tc, rate string
	secs     float64
}

func ffprobe(t *testing.T, p string) probed {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=codec_type,r_frame_rate:stream_tags=timecode:format=duration:format_tags=timecode", "-of", "json", p).Output()
	require.NoError(t, err, "ffprobe reads %s", p)
	var v struct {
		Streams []struct {
			Type string            `json:"codec_type"`
			Rate string            `json:"r_frame_rate"`
			Tags map[string]string `json:"tags"`
		}
		Format struct {
			Duration string
			Tags     map[string]string
		}
	}
	require.NoError(t, json.Unmarshal(out, &v))
	r := probed{tc: v.Format.Tags["timecode"]}
	for _, s := range v.Streams {
		if r.tc == "" {
			r.tc = s.Tags["timecode"]
		}
		if s.Type == "video" && r.rate == "" {
			r.rate = s.Rate
		}
	}
	r.secs, _ = strconv.ParseFloat(v.Format.Duration, 64)
	return r
}

func rate(s string) float64 {
	n, d, _ := strings.Cut(s, "/")
	a, _ := strconv.ParseFloat(n, 64)
	b, _ := strconv.ParseFloat(d, 64)
	return a / b
}

func md5File(t *testing.T, p string) string {
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	h := md5.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

type shown struct {
	Proxies []struct {
		Card, Clip, Preset, State, Source, Dest, Path, Error string
		TCStart                                              string `json:"tc_start"`
		Size                                                 int64
		Hashes                                               map[string]string
	}
}

func showProxies(t *testing.T, db string, job int64) shown {
	r := e2e.Dit(t, db, "job", "show", e2e.Itoa(job), "--proxies", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var s shown
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s), r.Stdout)
	return s
}

// checkProxies checks each source clip's proxy on disk against the
// source and the catalog: ffprobe reads it, its timecode and rate are the
// source's and its length within a frame; its size and hashes in the
// catalog are the file's.
func checkProxies(t *testing.T, s shown, card, ext string, dests ...string) {
	t.Helper()
	for _, c := range srcClips {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file))
		src := ffprobe(t, filepath.Join(card, c.file))
		var found []string
		for _, p := range s.Proxies {
			if p.Clip != name {
				continue
			}
			require.Equal(t, "made", p.State, "%s: %s", name, p.Error)
			require.Equal(t, name+ext, filepath.Base(p.Path))
			found = append(found, p.Dest)
			got := ffprobe(t, p.Path)
			require.Equal(t, src.tc, got.tc, "%s keeps the source's timecode", name)
			require.Equal(t, src.tc, p.TCStart)
			require.InDelta(t, rate(src.rate), rate(got.rate), 0.001, name)
			require.InDelta(t, src.secs, got.secs, 1/rate(src.rate)+0.0005, "%s: within a frame of the source", name)
			fi, err := os.Stat(p.Path)
			require.NoError(t, err)
			require.Equal(t, fi.Size(), p.Size)
			require.Equal(t, md5File(t, p.Path), p.Hashes["md5"], "the catalog's md5 is the file's")
			require.NotEmpty(t, p.Hashes["xxh64"])
			require.NotContains(t, p.Source, filepath.Join("cards", "A001"), "never read from the card")
		}
		slices.Sort(found)
		require.Equal(t, dests, found, name)
	}
}

// A real offload with --proxies to two folders: ProRes Proxy with burnt-in
// timecode and name, made once from the first copy and copied to the
// second; the card is safe to format, the unreadable clip a recorded
// proxy failure with ffmpeg's error line; the card is untouched.
func TestOffloadMakesProxies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := makeCard(t, dir)
	before := e2e.Tree(t, card)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r := e2e.Dit(t, db, "offload", "--json", "--name", "day01", "--hash", "md5,xxh64", "--proxies", "prores-proxy,burnin",
		"--proxies-to", raid, "--proxies-to", shuttle, "-d", raid, "-d", shuttle, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, events := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State, "a proxy failure is not the footage's")
	var proxyEvents int
	var lastCard map[string]any // the card in the last progress event
	for _, e := range events {
		if e["type"] == "proxy" {
			proxyEvents++
		}
		if p, ok := e["progress"].(map[string]any); ok && e["type"] == "progress" {
			lastCard = p["cards"].([]any)[0].(map[string]any)
		}
	}
	require.Equal(t, 2*len(srcClips)+1, proxyEvents)
	// The proxies are made after the card's run, most after the last
	// tick: the last progress event has their final count all the same.
	require.NotNil(t, lastCard)
	require.Equal(t, float64(len(srcClips)+1), lastCard["proxies"], "every clip, the unreadable one too")
	require.Equal(t, lastCard["proxies"], lastCard["proxies_made"], "the last progress has every proxy done with")
	require.Equal(t, before, e2e.Tree(t, card), "the card is untouched")

	s := showProxies(t, db, sum.JobID)
	checkProxies(t, s, card, ".mov", raid, shuttle)
	var failed int
	for _, p := range s.Proxies {
		if p.State == "failed" {
			failed++
			require.Equal(t, "A001C005_230512_R2EC", p.Clip)
			require.Contains(t, p.Error, "Invalid data found when processing input", "ffmpeg's own line")
			require.Empty(t, p.Path)
		}
	}
	require.Equal(t, 1, failed)
	// The proxies are beside the cards' folders, not in one; no temporary
	// file is left.
	for _, d := range []string{raid, shuttle} {
		require.NoDirExists(t, filepath.Join(d, "day01", "A001", "proxies"))
		require.Empty(t, e2e.DitTemps(t, filepath.Join(d, "proxies")))
		ents, err := os.ReadDir(filepath.Join(d, "proxies", "day01", "A001"))
		require.NoError(t, err)
		require.Len(t, ents, len(srcClips))
	}

	r = e2e.Dit(t, db, "job", "show", e2e.Itoa(sum.JobID), "--proxies")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, unicodeName)
	require.Contains(t, r.Stdout, "10:00:01:00")
	r = e2e.Dit(t, db, "job", "show", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, fmt.Sprintf("Proxies: %d made for %d clips on 2 destinations, 1 failed", 2*len(srcClips), len(srcClips)))
	checkReports(t, raid, len(srcClips)*2, 1)
	checkALEProxies(t, db, raid, len(srcClips)) // the failure was one preset of one clip: each has a proxy
}

// checkALEProxies reads the job's ALE (dit report): each clip whose
// proxy was made names it in Proxy File, on the same destination as its
// Source File, a file that exists and is named after the clip (what a
// relink by source file name finds).
func checkALEProxies(t *testing.T, db, dest string, want int) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "day01.ale")
	r := e2e.Dit(t, db, "report", "1", "--format", "ale", "--out", p)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	// One ALE, or one per rate beside it (day01_25fps.ale...).
	files, _ := filepath.Glob(strings.TrimSuffix(p, ".ale") + "*.ale")
	require.NotEmpty(t, files, r.Stdout)
	n := 0
	for _, a := range files {
		f, err := os.Open(a)
		require.NoError(t, err)
		_, cols, rows, err := ale.Read(f)
		f.Close()
		require.NoError(t, err)
		src, px := slices.Index(cols, "Source File"), slices.Index(cols, "Proxy File")
		require.GreaterOrEqual(t, px, 0, "a Proxy File column: %v", cols)
		for _, row := range rows {
			if row[px] == "" {
				continue
			}
			n++
			require.FileExists(t, row[px])
			require.True(t, strings.HasPrefix(row[src], dest+string(filepath.Separator)), row[src])
			require.True(t, strings.HasPrefix(row[px], dest+string(filepath.Separator)), "the proxy on the source's destination: %s", row[px])
			require.Equal(t, strings.TrimSuffix(filepath.Base(row[src]), filepath.Ext(row[src])),
				strings.TrimSuffix(filepath.Base(row[px]), filepath.Ext(row[px])), "a proxy named after its clip")
		}
	}
	require.Equal(t, want, n, "a proxy per clip whose proxy was made")
}

// checkReports reads the job's JSON and HTML reports: each card lists
// its proxies, made and failed.
func checkReports(t *testing.T, dest string, made, failed int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dest, "day01", "reports", "dit-report_job1_day01.json"))
	require.NoError(t, err)
	var rep struct {
		Cards []struct {
			SafeToFormat bool `json:"safe_to_format"`
			Proxies      []struct{ Clip, State, Path, Error string }
		}
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	n := map[string]int{}
	for _, p := range rep.Cards[0].Proxies {
		n[p.State]++
	}
	require.True(t, rep.Cards[0].SafeToFormat)
	require.Equal(t, map[string]int{"made": made, "failed": failed}, n)
	h, err := os.ReadFile(filepath.Join(dest, "day01", "reports", "dit-report_job1_day01.html"))
	require.NoError(t, err)
	require.Contains(t, string(h), fmt.Sprintf("<h3>Proxies (%d)</h3>", made+failed))
}

// H.264 and DNxHR LB (MXF), a second job of the same card: the first
// proxies are left as they were and the new ones are named "(2)".
func TestProxiesNeverOverwrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := makeCard(t, dir)
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	for i, preset := range []string{"h264", "dnxhr-lb"} {
		ext := map[string]string{"h264": ".mp4", "dnxhr-lb": ".mxf"}[preset]
		r := e2e.Dit(t, db, "offload", "--json", "--again", "--name", "day01", "--proxies", preset, "-d", raid, card)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		sum, _ := e2e.LastSummary(t, r.Stdout)
		checkProxies(t, showProxies(t, db, sum.JobID), card, ext, raid)
		if i == 0 {
			continue
		}
		first := e2e.Tree(t, filepath.Join(raid, "proxies"))
		r = e2e.Dit(t, db, "offload", "--json", "--again", "--name", "day01", "--proxies", preset, "-d", raid, card)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		sum, _ = e2e.LastSummary(t, r.Stdout)
		again := e2e.Tree(t, filepath.Join(raid, "proxies"))
		for p, h := range first {
			require.Equal(t, h, again[p], "%s left as it was", p)
		}
		for _, p := range showProxies(t, db, sum.JobID).Proxies {
			if p.State == "made" {
				require.True(t, strings.HasSuffix(p.Path, " (2)"+ext), p.Path)
			}
		}
	}
}

// A cascade from a dit array to a shuttle: the proxies are read from the
// array (through its range server, never the card), the copy they were
// made from named by the path it opens at, and written to the shuttle's
// proxies folder.
func TestProxiesFromADitArray(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := makeCard(t, dir)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB", "--label", "cart")
	shuttle := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r := e2e.Dit(t, db, "offload", "--json", "--name", "day01", "--proxies", "h264,burnin", "--proxies-to", shuttle, "-d", blades[0], "--then", shuttle, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	s := showProxies(t, db, sum.JobID)
	checkProxies(t, s, card, ".mp4", shuttle)
	failed := 0
	for _, p := range s.Proxies {
		if p.State == "made" {
			// The array's copy, named where it opens: below the
			// array's mount place (cart-UUID8), not the blade.
			require.Regexp(t, `^/.*/cart-[0-9a-f]{8}/day01/`, p.Source)
			require.NotContains(t, p.Source, blades[0])
		} else {
			failed++
		}
	}
	require.Equal(t, 1, failed, "each clip once, though the card has two runs")
}

// A job only to a dit array: its proxies (by default on the first -d)
// are read from the array and written into it when the job ends, under
// proxies/; dit array extract gets them back, and they are what the
// catalog says.
func TestProxiesIntoADitArray(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := makeCard(t, dir)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB", "--label", "cart")
	r := e2e.Dit(t, db, "offload", "--json", "--name", "day01", "--hash", "md5,xxh64", "--proxies", "dnxhr-lb-mov", "-d", blades[0], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)
	s := showProxies(t, db, sum.JobID)
	out := filepath.Join(dir, "out")
	r = e2e.Dit(t, db, "array", "extract", "array:"+blades[0]+"//proxies", "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	got := map[string]string{}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got[d.Name()] = p
		}
		return nil
	})
	made := 0
	for _, p := range s.Proxies {
		if p.State != "made" {
			continue
		}
		made++
		// Where the proxy opens: below the array's mount place (raid/mountplace).
		require.True(t, strings.HasSuffix(p.Path, string(filepath.Separator)+filepath.Join("proxies", "day01", "A001", p.Clip+".mov")), p.Path)
		require.Contains(t, p.Path, string(filepath.Separator)+"cart-", p.Path)
		require.NotContains(t, p.Path, "array:")
		x, ok := got[p.Clip+".mov"]
		require.True(t, ok, "%s extracted from the array", p.Clip)
		require.Equal(t, md5File(t, x), p.Hashes["md5"], "the catalog's md5 is the file's")
		for _, c := range srcClips {
			if strings.TrimSuffix(c.file, filepath.Ext(c.file)) == p.Clip {
				require.Equal(t, ffprobe(t, filepath.Join(card, c.file)).tc, ffprobe(t, x).tc, p.Clip)
			}
		}
	}
	require.Equal(t, len(srcClips), made)
	require.Len(t, got, len(srcClips), "no temporary file left in the array")
}

// Mistakes are refused before anything is copied, saying what to give:
// an unknown preset, --proxies-to not a destination of the job, and no
// ffmpeg on PATH.
func TestProxiesRefusedBeforeCopying(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "cards", "A001")
	require.NoError(t, os.MkdirAll(card, 0o755))
	e2e.WriteFile(t, filepath.Join(card, "A001C001.mov"), "not a movie")
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	r := e2e.Dit(t, db, "offload", "--proxies", "mpeg2", "-d", raid, card)
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "prores-proxy, h264, dnxhr-lb, dnxhr-lb-mov")
	r = e2e.Dit(t, db, "offload", "--proxies", "h264", "--proxies-to", dir, "-d", raid, card)
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "--proxies-to "+dir+" is not a destination")
	r = e2e.Dit(t, db, "offload", "--proxies-to", raid, "-d", raid, card)
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "--proxies-to needs --proxies")
	r = e2e.RunDit(t, []string{"DIT_DB=" + db, "PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir}, "offload", "--drive-health", "off",
		"--proxies", "h264", "-d", raid, card)
	require.NotEqual(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "--proxies needs ffmpeg and ffprobe on PATH")
	ents, err := os.ReadDir(raid)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing copied")
}
