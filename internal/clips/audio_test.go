package clips

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
)

// ffprobe's audio streams make the clip's sound: their count, their
// channels summed (an ARRI MXF's mono tracks, a stereo track), the first
// one's rate, bit depth and codec; a file without audio has none
// (Channels 0, not unknown).
func TestProbeReadsAudio(t *testing.T) {
	p, err := parseProbe([]byte(`{"streams":[{"codec_type":"video","codec_name":"dnxhd","width":1920,"height":1080,"avg_frame_rate":"24000/1001"},
		{"codec_type":"audio","codec_name":"pcm_s24le","channels":1,"sample_rate":"48000","bits_per_sample":24},
		{"codec_type":"audio","codec_name":"pcm_s24le","channels":1,"sample_rate":"48000","bits_per_sample":24},
		{"codec_type":"audio","codec_name":"aac","channels":2,"sample_rate":"44100","bits_per_sample":0}],"format":{"duration":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Audio{Streams: 3, Channels: 4, Rate: 48000, Bits: 24, Codec: "PCM"}
	if p.Audio != want {
		t.Errorf("audio %+v, want %+v", p.Audio, want)
	}
	if s := p.Audio.String(); s != "4 ch, 24-bit PCM, 48 kHz" {
		t.Errorf("audio written %q", s)
	}
	mos, err := parseProbe([]byte(`{"streams":[{"codec_type":"video","codec_name":"prores","width":640,"height":360,"avg_frame_rate":"25/1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Clip{Type: TypeProRes}
	mos.Fill(&c)
	if c.Audio == nil || c.Audio.Channels != 0 || c.Audio.String() != "none" {
		t.Errorf("a file without audio: %+v", c.Audio)
	}
	raw, _ := parseProbe([]byte(`{"streams":[{"codec_type":"video","codec_name":"prores","width":640,"height":360,"avg_frame_rate":"25/1"},
		{"codec_type":"audio","codec_name":"pcm_s16le","channels":2,"sample_rate":"44100","bits_per_raw_sample":"16"}]}`))
	if raw.Audio != (Audio{Streams: 1, Channels: 2, Rate: 44100, Bits: 16, Codec: "PCM"}) || raw.Audio.String() != "2 ch, 16-bit PCM, 44.1 kHz" {
		t.Errorf("bits from bits_per_raw_sample: %+v %q", raw.Audio, raw.Audio.String())
	}
	var unknown *Audio
	if unknown.String() != "" {
		t.Errorf("unknown audio written %q", unknown.String())
	}
}

// Sony's M01.XML says the clip's channels (AudioFormat numOfChannel)
// and their codec; when the media says otherwise the media wins and
// the clip says so.
func TestSonySidecarAudio(t *testing.T) {
	xml := `<NonRealTimeMeta><Duration value="96"/><AudioFormat numOfChannel="4">
		<AudioRecPort port="DIRECT" audioCodec="LPCM24" trackDst="CH1"/><AudioRecPort port="DIRECT" audioCodec="LPCM24" trackDst="CH2"/>
		</AudioFormat></NonRealTimeMeta>`
	k := Recognize([]File{{Rel: "PRIVATE/M4ROOT/CLIP/C0001.MP4", Size: 10}, {Rel: "PRIVATE/M4ROOT/CLIP/C0001M01.XML", Size: int64(len(xml))}},
		func(string) ([]byte, error) { return []byte(xml), nil })
	if len(k.Clips) != 1 {
		t.Fatalf("%d clips", len(k.Clips))
	}
	c := k.Clips[0]
	if c.Audio == nil || *c.Audio != (Audio{Channels: 4, Bits: 24, Codec: "PCM"}) {
		t.Fatalf("sidecar audio %+v", c.Audio)
	}
	p := &Probe{Frames: 96, Audio: Audio{Streams: 1, Channels: 2, Rate: 48000, Codec: "AAC"}}
	p.Fill(&c)
	want := []string{"audio channels: sidecar 4, media 2 (the media's kept)"}
	if !slices.Equal(c.Conflicts, want) || c.Audio.Channels != 2 || c.Audio.Codec != "AAC" {
		t.Errorf("conflicts %q, audio %+v", c.Conflicts, c.Audio)
	}
}

// Real files made by ffmpeg: an ARRI-like MXF with two mono 24-bit PCM
// tracks, a QuickTime movie with one stereo track, one without sound.
func TestProbeRealAudio(t *testing.T) {
	testneeds.EndToEnd(t, "ffmpeg")
	ff, err := FindFFmpeg()
	if err != nil {
		t.Skip("ffmpeg and ffprobe are needed (Debian: ffmpeg)")
	}
	dir := t.TempDir()
	tone := []string{"-f", "lavfi", "-i", "sine=f=1000:sample_rate=48000:d=0.5"}
	for _, c := range []struct {
		name string
		args []string
		want Audio
	}{
		{"A001C001_230512_R2EC.mxf", append(append(append([]string{"-f", "lavfi", "-i", "testsrc=d=0.5:s=1920x1080:r=24000/1001"}, tone...), tone...),
			"-map", "0", "-map", "1", "-map", "2", "-c:v", "dnxhd", "-b:v", "36M", "-pix_fmt", "yuv422p", "-c:a", "pcm_s24le", "-timecode", "10:00:00:00"),
			Audio{Streams: 2, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"}},
		{"A001_05121432_C001.mov", append(append([]string{"-f", "lavfi", "-i", "testsrc=d=0.5:s=640x360:r=25"}, tone...),
			"-ac", "2", "-c:v", "prores_ks", "-c:a", "pcm_s24le"), Audio{Streams: 1, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"}},
		{"C0001.mov", []string{"-f", "lavfi", "-i", "testsrc=d=0.5:s=640x360:r=25", "-c:v", "prores_ks"}, Audio{}},
	} {
		p := filepath.Join(dir, c.name)
		if out, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-nostdin"}, c.args...), p)...).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg %s: %v: %s", c.name, err, out)
		}
		pr, err := ff.Probe(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Audio != c.want {
			t.Errorf("%s: audio %+v, want %+v", c.name, pr.Audio, c.want)
		}
	}
}

// A ProRes movie named as Blackmagic names its BRAW (reel, date and
// time, clip) is a Blackmagic clip; a camera the media's tags name
// gives a clip of no family its family.
func TestBlackmagicMovieAndFamilyFromTags(t *testing.T) {
	k := Recognize([]File{{Rel: "C001_08151440_C002.mov", Size: 1}, {Rel: "clip.mov", Size: 1}}, nil)
	if len(k.Clips) != 2 {
		t.Fatalf("%d clips", len(k.Clips))
	}
	if c := k.Clips[0]; c.Family != FamilyBlackmagic || c.Reel != "C001" || c.Type != TypeProRes {
		t.Errorf("Blackmagic-named movie: %+v", c)
	}
	c := k.Clips[1]
	if c.Family != "" {
		t.Fatalf("a movie named by nobody: %+v", c)
	}
	(&Probe{Camera: "Blackmagic Design URSA Mini Pro 12K", Type: "ProRes"}).Fill(&c)
	if c.Family != FamilyBlackmagic || c.Camera != "Blackmagic Design URSA Mini Pro 12K" {
		t.Errorf("the media's camera tags: %+v", c)
	}
}
