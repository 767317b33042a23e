package proxies

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// probe is what ffprobe says of a movie: its start timecode (any
// stream's or the container's), rate and duration.
func probe(t *testing.T, p string) (tc, rate string, secs float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=codec_type,r_frame_rate:stream_tags=timecode:format=duration:format_tags=timecode", "-of", "json", p).Output()
	require.NoError(t, err, p)
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
	tc = v.Format.Tags["timecode"]
	for _, s := range v.Streams {
		if tc == "" {
			tc = s.Tags["timecode"]
		}
		if s.Type == "video" && rate == "" {
			rate = s.Rate
		}
	}
	secs, _ = strconv.ParseFloat(v.Format.Duration, 64)
	return tc, rate, secs
}

// Every preset from a real MXF with timecode 10:00:01:00: the proxy
// keeps the timecode, the rate and the length; a second proxy of the
// same clip is named "(2)", the first left as it was.
func TestEncodeKeepsTimecodeAndRate(t *testing.T) {
	tools(t)
	dir := t.TempDir()
	in := clip(t, dir, "A001C001.mxf", "-f", "lavfi", "-i", "testsrc=d=1:s=640x360:r=25", "-f", "lavfi", "-i", "sine=d=1",
		"-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p", "-c:a", "pcm_s16le", "-ar", "48000", "-timecode", "10:00:01:00")
	tc, rate, secs := probe(t, in)
	require.Equal(t, "10:00:01:00", tc)
	algos := []hashing.Algo{hashing.MD5, hashing.XXH64}
	for _, p := range Presets {
		out := filepath.Join(dir, "proxies", p.Name)
		m, err := Encode(context.Background(), "ffmpeg", Spec{Preset: p, Burnin: p.Name == "h264"}, Source{In: in, Name: "A001C001", TC: tc, Rate: rate}, out, "A001C001", algos)
		require.NoError(t, err, p.Name)
		require.Equal(t, filepath.Join(out, "A001C001"+p.Ext), m.Path)
		gtc, grate, gsecs := probe(t, m.Path)
		require.Equal(t, tc, gtc, "%s keeps the source's timecode", p.Name)
		require.Equal(t, rate, grate, p.Name)
		require.InDelta(t, secs, gsecs, 1.0/25, p.Name)
		sums, size, err := HashFile(m.Path, algos)
		require.NoError(t, err)
		require.Equal(t, sums, m.Sums)
		require.Equal(t, size, m.Size)
		ents, _ := os.ReadDir(out)
		require.Len(t, ents, 1, "no temporary file left")

		m2, err := Encode(context.Background(), "ffmpeg", Spec{Preset: p}, Source{In: in, TC: tc}, out, "A001C001", algos)
		require.NoError(t, err)
		require.Equal(t, filepath.Join(out, "A001C001 (2)"+p.Ext), m2.Path, "never over the first")
		again, _, _ := HashFile(m.Path, algos)
		require.Equal(t, m.Sums, again, "the first proxy is as it was")
	}
}

// A clip ffmpeg cannot read: an *Error with ffmpeg's error line, and
// nothing left in the folder.
func TestEncodeUnreadable(t *testing.T) {
	tools(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mov")
	require.NoError(t, os.WriteFile(bad, append([]byte("\x00\x00\x00\x14ftypqt  "), make([]byte, 4096)...), 0o644))
	out := filepath.Join(dir, "out")
	_, err := Encode(context.Background(), "ffmpeg", Spec{Preset: Presets[0]}, Source{In: bad}, out, "bad", []hashing.Algo{hashing.XXH64})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	require.NotEmpty(t, pe.Line)
	require.Contains(t, err.Error(), bad)
	ents, _ := os.ReadDir(out)
	require.Empty(t, ents)
}

// Cancelling stops ffmpeg and leaves no file. ffmpeg reads from a
// loopback server that answers nothing; the context is cancelled once
// ffmpeg has asked it (an event, not a delay).
func TestEncodeCancel(t *testing.T) {
	tools(t)
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Encode(ctx, "ffmpeg", Spec{Preset: Presets[1]}, Source{In: srv.URL + "/A001C001.mov"}, out, "A001C001", nil)
		done <- err
	}()
	<-asked
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	ents, _ := os.ReadDir(out)
	require.Empty(t, ents)
}
