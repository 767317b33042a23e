package testcards

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
)

// With ffmpeg, a clips card's movies are real: ffprobe reads ProRes
// 4444 XQ at 24 fps, 2 to 4 seconds, starting at the timecode the
// clip's XML sidecar gives. The card keeps the names, sizes and
// modification times it has without ffmpeg, and the same seed gives the
// same bytes again.
func TestMoviesAreReal(t *testing.T) {
	testneeds.EndToEnd(t, "ffmpeg")
	ffmpeg, err := FindFFmpeg()
	if err != nil {
		t.Skip(err)
	}
	testneeds.Tool(t, "ffprobe", "Debian: apt-get install ffmpeg")
	o := Options{Cards: 1, Size: testSize, Seed: 5, FFmpeg: ffmpeg}
	o.Out = t.TempDir()
	a := generate(t, o)
	o.Out = t.TempDir()
	b := generate(t, o)
	o.Out, o.FFmpeg = t.TempDir(), ""
	plain := generate(t, o)
	ta, tb, tp := scan(t, a[0].Path), scan(t, b[0].Path), scan(t, plain[0].Path)
	if a[0] != (Card{Label: "A001", Path: a[0].Path, Files: plain[0].Files, Bytes: plain[0].Bytes}) {
		t.Errorf("with movies %+v, without %+v", a[0], plain[0])
	}
	if len(ta) != len(tp) || len(ta) != len(tb) {
		t.Errorf("%d entries with movies (%d the second time), %d without", len(ta), len(tb), len(tp))
	}
	movies := 0
	for rel, e := range ta {
		if e != tb[rel] {
			t.Errorf("%s differs from one run to the next: %+v vs %+v", rel, e, tb[rel])
		}
		p := tp[rel]
		if e.size != p.size || !e.mtime.Equal(p.mtime) || e.dir != p.dir {
			t.Errorf("%s: %+v with movies, %+v without", rel, e, p)
		}
		if !clipRE.MatchString(rel) {
			continue
		}
		movies++
		x, err := os.ReadFile(filepath.Join(a[0].Path, strings.TrimSuffix(rel, ".mov")+".xml"))
		if err != nil {
			t.Fatal(err)
		}
		tc := regexp.MustCompile(`<Timecode start="([0-9:]+)"`).FindSubmatch(x)
		if tc == nil {
			t.Fatalf("no timecode in the sidecar of %s:\n%s", rel, x)
		}
		checkMovie(t, filepath.Join(a[0].Path, rel), string(tc[1]))
	}
	if movies < 3 {
		t.Errorf("%d movies", movies)
	}
}

// checkMovie asks ffprobe what the movie at p is.
func checkMovie(t *testing.T, p, tc string) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
		"stream=codec_name,profile,width,height,r_frame_rate,nb_frames:stream_tags=timecode", "-of", "json", p).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", p, err)
	}
	var v struct {
		Streams []struct {
			Codec   string `json:"codec_name"`
			Profile string
			Width   int
			Height  int
			Rate    string `json:"r_frame_rate"`
			Frames  string `json:"nb_frames"`
			Tags    map[string]string
		}
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Streams) != 1 {
		t.Fatalf("ffprobe %s: %v\n%s", p, err, out)
	}
	s := v.Streams[0]
	frames, _ := strconv.Atoi(s.Frames)
	if s.Codec != "prores" || s.Profile != "XQ" || s.Width != MovieWidth || s.Height != MovieHeight ||
		s.Rate != strconv.Itoa(MovieFPS)+"/1" || s.Tags["timecode"] != tc || frames < 2*MovieFPS || frames > 4*MovieFPS {
		t.Errorf("%s: ffprobe reads %+v; want ProRes XQ %dx%d at %d fps, 2-4 s, timecode %s",
			filepath.Base(p), s, MovieWidth, MovieHeight, MovieFPS, tc)
	}
}

// Every test source a movie may show makes a movie ffprobe reads.
func TestMovieSources(t *testing.T) {
	testneeds.EndToEnd(t, "ffmpeg")
	ffmpeg, err := FindFFmpeg()
	if err != nil {
		t.Skip(err)
	}
	testneeds.Tool(t, "ffprobe", "Debian: apt-get install ffmpeg")
	dir := t.TempDir()
	for _, src := range movieSources {
		p := filepath.Join(dir, src+".mov")
		if out, err := exec.Command(ffmpeg, movieArgs(src, 2, "01:02:03:04", p)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", src, err, out)
		}
		checkMovie(t, p, "01:02:03:04")
	}
}

// An ffmpeg that cannot make the movies (a build without ProRes) is not
// used: FindFFmpeg says why, as it does when there is none.
func TestFindFFmpegRefusesOneThatCannot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for ffmpeg")
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := FindFFmpeg(); err == nil || !strings.Contains(err.Error(), "ffmpeg not found on PATH") {
		t.Errorf("no ffmpeg: %v", err)
	}
	script := "#!/bin/sh\necho \"Unknown encoder 'prores_aw'\" >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := FindFFmpeg(); err == nil || !strings.Contains(err.Error(), "cannot make a ProRes movie") ||
		!strings.Contains(err.Error(), "Unknown encoder 'prores_aw'") {
		t.Errorf("an ffmpeg without ProRes: %v", err)
	}
}
