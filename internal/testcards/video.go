package testcards

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Movie is the shape of the real movies Options.FFmpeg makes: short
// ProRes 4444 XQ QuickTime files at a proxy's resolution, at the rate
// and with the start timecode the clip's XML sidecar gives.
const (
	MovieCodec  = "Apple ProRes 4444 XQ"
	MovieWidth  = 320
	MovieHeight = 180
	MovieFPS    = 24
)

// movieSources are ffmpeg's test sources the movies show, one picked a
// clip (from the seed), so that poster frames differ from clip to clip.
var movieSources = []string{"testsrc2", "testsrc", "smptehdbars", "yuvtestsrc"}

// FindFFmpeg is the path of ffmpeg on PATH, for Options.FFmpeg, once it
// has made a one-second movie as Generate makes them; or an error saying
// why not (missing, or built without ProRes or lavfi).
func FindFFmpeg() (string, error) {
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", fmt.Errorf("ffmpeg not found on PATH (Debian: apt-get install ffmpeg; macOS: brew install ffmpeg)")
	}
	dir, err := os.MkdirTemp("", "dit-testcards-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	out, err := exec.Command(p, movieArgs(movieSources[0], 1, "00:00:00:00", filepath.Join(dir, "try.mov"))...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s cannot make a ProRes movie: %v: %s", p, err, strings.TrimSpace(string(out)))
	}
	return p, nil
}

// movieSeconds is how long the clip called name runs: 2 to 4 seconds,
// from the seed (not from the layout's random source, so that the
// card's other choices are the same with and without movies).
func (g *cardGen) movieSeconds(name string) int {
	return 2 + int(hash64(g.seed, g.label, "movie-seconds:"+name)%3)
}

// writeMovie writes a real movie of size bytes at rel: ffmpeg makes a
// short ProRes 4444 XQ QuickTime file from one of its test sources, with
// tc as its start timecode, and a top-level "free" atom of pseudo-random
// bytes (derived like writeRandom's) pads it to size, which QuickTime
// readers skip, so the card keeps its size and its bytes stay
// incompressible. A movie larger than size is left unpadded.
func (g *cardGen) writeMovie(rel, name string, size int64, tc string) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	src := movieSources[hash64(g.seed, g.label, "movie-source:"+name)%uint64(len(movieSources))]
	p := g.abs(rel)
	cmd := exec.CommandContext(g.ctx, g.ffmpeg, movieArgs(src, g.movieSeconds(name), tc, p)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if e := g.ctx.Err(); e != nil {
			return e
		}
		return fmt.Errorf("ffmpeg could not make %s: %v: %s", rel, err, strings.TrimSpace(errb.String()))
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, fileMode)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if pad := size - fi.Size(); pad >= 8 {
		if err := g.pad(f, rel, pad); err != nil {
			f.Close()
			return err
		}
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return err
	}
	return g.done(f, rel, fi.Size(), false)
}

// movieArgs are ffmpeg's arguments for a movie of source src (one of
// movieSources), seconds long, starting at timecode tc, written to out
// (-n: never overwriting it), with prores_aw, the lighter of ffmpeg's two
// ProRes encoders. -bitexact and no metadata: the same bytes every time
// with the same ffmpeg.
func movieArgs(src string, seconds int, tc, out string) []string {
	in := fmt.Sprintf("%s=size=%dx%d:rate=%d:duration=%d", src, MovieWidth, MovieHeight, MovieFPS, seconds)
	return []string{"-nostdin", "-hide_banner", "-v", "error", "-n",
		"-f", "lavfi", "-i", in, "-c:v", "prores_aw", "-profile:v", "5", "-pix_fmt", "yuv444p10le",
		"-timecode", tc, "-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact", "-f", "mov", out}
}

// pad appends a QuickTime "free" atom of n bytes to f: its header (a
// 64-bit size past 4 GB) and pseudo-random bytes.
func (g *cardGen) pad(f *os.File, rel string, n int64) error {
	var head []byte
	if n <= 1<<32-1 {
		head = binary.BigEndian.AppendUint32(nil, uint32(n))
		head = append(head, "free"...)
	} else {
		head = binary.BigEndian.AppendUint32(nil, 1)
		head = append(head, "free"...)
		head = binary.BigEndian.AppendUint64(head, uint64(n))
	}
	if _, err := f.Write(head); err != nil {
		return err
	}
	s := g.stream(rel)
	for left := n - int64(len(head)); left > 0; {
		if err := g.ctx.Err(); err != nil {
			return err
		}
		b := g.buf[:min(left, int64(len(g.buf)))]
		clear(b)
		s.XORKeyStream(b, b)
		if _, err := f.Write(b); err != nil {
			return err
		}
		left -= int64(len(b))
	}
	return nil
}
