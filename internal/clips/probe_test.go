package clips

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
)

// Real clips made with ffmpeg, one per container and codec: what the file
// says (its timecode, codec, rate, length) reaches the clip, and beats the
// camera family's guess from the name (an ARRI-named MXF that holds DNxHD
// is DNxHD, not ProRes).
func TestProbeRealClips(t *testing.T) {
	testneeds.EndToEnd(t, "ffmpeg")
	ff, err := FindFFmpeg()
	if err != nil {
		t.Skip("ffmpeg and ffprobe are needed (Debian: ffmpeg)")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		typ    string
		codec  string
		tc     string
		fps    string
		frames int
		res    string
	}{
		{"A001C001_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc=d=2:s=1920x1080:r=25", "-c:v", "dnxhd", "-b:v", "36M", "-pix_fmt", "yuv422p", "-timecode", "10:00:01:00"},
			"DNxHD", "DNxHD", "10:00:01:00", "25", 50, "1920x1080"},
		{"A002C003_230512_R2EC.mov", []string{"-f", "lavfi", "-i", "testsrc=d=2:s=640x360:r=24000/1001", "-c:v", "prores_ks", "-profile:v", "3", "-timecode", "01:02:03:04"},
			"ProRes", "ProRes 422 HQ", "01:02:03:04", "23.976", 48, "640x360"},
		{"C0001.mp4", []string{"-f", "lavfi", "-i", "testsrc=d=2:s=640x360:r=30", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-timecode", "00:59:58:00"},
			"H.264", "H.264", "00:59:58:00", "30", 60, "640x360"},
		{"B001C002_230512_R1AB.mxf", []string{"-f", "lavfi", "-i", "testsrc=d=1:s=1280x720:r=30000/1001", "-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p", "-timecode", "00:00:59;28"},
			"DNxHR", "DNxHR LB", "00:00:59;28", "29.97", 30, "1280x720"},
		// ProRes in MXF, as an ALEXA Mini LF records it: ffprobe gives no
		// average rate (0/0), only the stream's base rate.
		{"A003C004_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc2=d=2:s=640x360:r=24", "-c:v", "prores", "-profile:v", "4", "-pix_fmt", "yuv444p10le", "-timecode", "15:30:00:12"},
			"ProRes", "ProRes 4444", "15:30:00:12", "24", 48, "640x360"},
		// MPEG-2 in an ARRI-named MXF: the file says MPEG-2, not the
		// family's ProRes.
		{"A004C001_230512_R2EC.mxf", []string{"-f", "lavfi", "-i", "testsrc=d=1:s=1920x1080:r=30000/1001", "-c:v", "mpeg2video", "-b:v", "20M", "-pix_fmt", "yuv422p", "-timecode", "10:00:00;00"},
			"MPEG-2", "MPEG-2 Long GOP", "10:00:00;00", "29.97", 30, "1920x1080"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			args := append(append([]string{"-v", "error", "-nostdin"}, c.args...), p)
			if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
				t.Skipf("ffmpeg cannot make %s here: %v: %s", c.name, err, out)
			}
			k := Recognize([]File{{Rel: c.name, Size: 1}}, nil)
			if len(k.Clips) != 1 {
				t.Fatalf("%d clips", len(k.Clips))
			}
			clip := k.Clips[0]
			pr, err := ff.Probe(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			pr.Fill(&clip)
			if clip.Type != c.typ || clip.Codec != c.codec || clip.TCStart != c.tc || clip.FPS != c.fps || clip.Frames != c.frames || clip.Resolution != c.res {
				t.Errorf("type %q codec %q tc %q fps %q frames %d res %q; want %q %q %q %q %d %q",
					clip.Type, clip.Codec, clip.TCStart, clip.FPS, clip.Frames, clip.Resolution, c.typ, c.codec, c.tc, c.fps, c.frames, c.res)
			}
			if want := TCOut(c.tc, c.frames, c.fps); want == "" {
				t.Errorf("no TC out for %s", c.name)
			}
		})
	}
}

// A sidecar's codec (the camera's own record) stays; a family's default
// codec gives way to the file's. Where the sidecar and the media disagree
// on what the media carries (its start timecode, its length), the media
// wins and the clip says what the sidecar said.
func TestProbeFillKeepsSidecarsOverGuesses(t *testing.T) {
	p := &Probe{Codec: "DNxHD", Type: "DNxHD", TCStart: "10:00:00:00", FPS: "24", Frames: 96, Seconds: 4}
	side := Clip{Type: TypeXAVC, Codec: "XAVC-I", TCStart: "01:00:00:00", FPS: "24", Frames: 120, Seconds: 5}
	p.Fill(&side)
	if side.Codec != "XAVC-I" || side.Type != TypeXAVC {
		t.Errorf("sidecar clip became %+v", side)
	}
	if side.TCStart != "10:00:00:00" || side.Frames != 96 || side.Seconds != 4 {
		t.Errorf("the media's timecode and length not kept: %+v", side)
	}
	want := []string{"start timecode: sidecar 01:00:00:00, media 10:00:00:00 (the media's kept)",
		"frames: sidecar 120, media 96 (the media's kept)"}
	if !slices.Equal(side.Conflicts, want) {
		t.Errorf("conflicts %q, want %q", side.Conflicts, want)
	}
	agree := Clip{Type: TypeXAVC, TCStart: "10:00:00:00", FPS: "24", Frames: 96}
	p.Fill(&agree)
	if len(agree.Conflicts) != 0 {
		t.Errorf("no disagreement, yet %q", agree.Conflicts)
	}
	guess := Clip{Type: TypeR3D, Codec: defaultCodec[TypeR3D]}
	p.Fill(&guess)
	if guess.Codec != "DNxHD" || guess.Type != TypeR3D {
		t.Errorf("guessed codec not replaced, or a recognised type changed: %+v", guess)
	}
}

// The camera, its serial and the reel come from the container's tags
// where the camera wrote them (ARRI's com.arri.camera.*, QuickTime's
// make and model): over the family's guess from names, never a muxer's
// own tags.
func TestProbeReadsCameraTags(t *testing.T) {
	p, err := parseProbe([]byte(`{"streams":[{"codec_type":"video","codec_name":"prores","profile":"4444 XQ","width":4608,"height":3164,
		"avg_frame_rate":"24/1","nb_frames":"48"}],"format":{"duration":"2","tags":{"com.apple.quicktime.make":"ARRI",
		"com.arri.camera.CameraModel":"ALEXA 35","com.arri.camera.CameraSerialNumber":"20012","com.arri.camera.ReelName":"A007",
		"encoder":"Lavf59.27.100"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Camera != "ARRI ALEXA 35" || p.Serial != "20012" || p.Reel != "A007" || p.Codec != "ProRes 4444 XQ" {
		t.Fatalf("probe %+v", p)
	}
	guess := Clip{Name: "A001C001_230512_R2EC", Reel: "A001", Camera: "ARRI ALEXA", Type: TypeProRes}
	p.Fill(&guess)
	if guess.Camera != "ARRI ALEXA 35" || guess.Serial != "20012" || guess.Reel != "A007" {
		t.Errorf("the media's camera, serial and reel not kept: %+v", guess)
	}
	muxer, _ := parseProbe([]byte(`{"streams":[{"codec_type":"video","codec_name":"mpeg2video","width":1920,"height":1080,
		"avg_frame_rate":"25/1"}],"format":{"tags":{"company_name":"FFmpeg","product_name":"OP1a Muxer","encoder":"Lavf"}}}`))
	if muxer.Camera != "" || muxer.Serial != "" || muxer.Reel != "" {
		t.Errorf("a muxer's tags taken for a camera: %+v", muxer)
	}
}
