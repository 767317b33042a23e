package testcards

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
)

// Each family card holds what its clips say: ffprobe reads each movie's
// start timecode, length, rate and audio channels as made; the other
// media are the files their names promise; the cards are never made
// over a folder that exists.
func TestFamilyCards(t *testing.T) {
	ffmpeg := testneeds.Tool(t, "ffmpeg", "Debian: apt-get install ffmpeg")
	testneeds.Tool(t, "ffprobe", "Debian: apt-get install ffmpeg")
	out := t.TempDir()
	cards, err := MakeFamilyCards(context.Background(), ffmpeg, out)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	rates := map[string]bool{}
	for _, c := range cards {
		families[c.Family] = true
		for _, k := range c.Clips {
			p := filepath.Join(c.Path, filepath.FromSlash(k.Media))
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", k.Name, err)
				continue
			}
			rates[k.FPS] = true
			if !k.Movie {
				continue
			}
			tc, frames, fps, channels := ffprobeOf(t, p)
			if tc != k.TCIn || frames != k.Frames || fps != k.FPS || channels != k.Channels {
				t.Errorf("%s: ffprobe reads %s, %d frames at %s, %d channels; made %s, %d at %s, %d",
					k.Name, tc, frames, fps, channels, k.TCIn, k.Frames, k.FPS, k.Channels)
			}
		}
	}
	for _, f := range []string{"ARRI", "Sony", "Blackmagic", "RED"} {
		if !families[f] {
			t.Errorf("no %s card", f)
		}
	}
	for _, r := range []string{"23.976", "25", "29.97"} {
		if !rates[r] {
			t.Errorf("no clip at %s fps", r)
		}
	}
	if _, err := MakeFamilyCards(context.Background(), ffmpeg, out); err == nil || !strings.Contains(err.Error(), "A001") {
		t.Errorf("made over existing cards: %v", err)
	}
}

// ffprobeOf is what ffprobe says of the movie at p: its start timecode,
// frames (duration times rate), rate as editors write it, and audio
// channels.
func ffprobeOf(t *testing.T, p string) (tc string, frames int, fps string, channels int) {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=codec_type,r_frame_rate,channels:stream_tags=timecode:format=duration:format_tags=timecode", "-of", "json", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Streams []struct {
			Type     string            `json:"codec_type"`
			Rate     string            `json:"r_frame_rate"`
			Channels int               `json:"channels"`
			Tags     map[string]string `json:"tags"`
		}
		Format struct {
			Duration string            `json:"duration"`
			Tags     map[string]string `json:"tags"`
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	tc = v.Format.Tags["timecode"]
	var rate float64
	for _, s := range v.Streams {
		if tc == "" {
			tc = s.Tags["timecode"]
		}
		switch s.Type {
		case "audio":
			channels += s.Channels
		case "video":
			n, d, _ := strings.Cut(s.Rate, "/")
			num, _ := strconv.ParseFloat(n, 64)
			den, _ := strconv.ParseFloat(d, 64)
			rate = num / den
		}
	}
	secs, _ := strconv.ParseFloat(v.Format.Duration, 64)
	fps = strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", rate), "0"), ".")
	return tc, int(math.Round(secs * rate)), fps, channels
}
