package clips

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// NoFFmpeg is the note a report carries when ffmpeg or ffprobe is not on
// PATH.
const NoFFmpeg = "ffmpeg not found"

// ErrNoFFmpeg is returned by [FindFFmpeg] when ffmpeg or ffprobe is not on
// PATH.
var ErrNoFFmpeg = errors.New(NoFFmpeg)

// FFmpeg runs ffmpeg and ffprobe at low priority: under nice -n 19 (and
// ionice -c 3, idle I/O, where there is one), so that poster frames never
// slow an offload.
type FFmpeg struct {
	FFmpeg, FFprobe string
	prefix          []string
}

// FindFFmpeg looks for ffmpeg and ffprobe on PATH.
func FindFFmpeg() (*FFmpeg, error) {
	ff, err1 := exec.LookPath("ffmpeg")
	fp, err2 := exec.LookPath("ffprobe")
	if err1 != nil || err2 != nil {
		return nil, ErrNoFFmpeg
	}
	x := &FFmpeg{FFmpeg: ff, FFprobe: fp}
	if n, err := exec.LookPath("nice"); err == nil {
		x.prefix = append(x.prefix, n, "-n", "19")
	}
	if n, err := exec.LookPath("ionice"); err == nil {
		x.prefix = append(x.prefix, n, "-c", "3")
	}
	return x, nil
}

func (x *FFmpeg) command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), x.prefix...), bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = nil
	return cmd
}

// Readable tells whether ffmpeg can read clip c's poster file, from its
// type and the first bytes of the file (head): QuickTime / MP4, MXF,
// MPEG-TS, Matroska, AVI and TIFF-based DNG. Camera raw formats ffmpeg has
// no decoder for (ARRIRAW, X-OCN, R3D, BRAW, Cinema RAW Light) are not.
func Readable(c *Clip, head []byte) bool {
	switch c.Type {
	case TypeARRIRAW, TypeXOCN, TypeR3D, TypeBRAW, TypeCRM:
		return false
	}
	switch {
	case len(head) >= 8 && bytes.Contains([]byte("ftyp moov mdat wide free skip pnot"), head[4:8]):
		return true
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x06, 0x0e, 0x2b, 0x34}): // MXF
		return true
	case len(head) >= 4 && (string(head[:4]) == "II*\x00" || string(head[:4]) == "MM\x00*"): // TIFF, DNG
		return true
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x1a, 0x45, 0xdf, 0xa3}): // Matroska
		return true
	case len(head) >= 4 && string(head[:4]) == "RIFF":
		return true
	case len(head) >= 5 && (ext(c.Poster) == "mts" || ext(c.Poster) == "m2ts") && (head[0] == 0x47 || head[4] == 0x47): // MPEG-TS, M2TS
		return true
	}
	return false
}

// Head reads the first bytes of a file, for [Readable].
func Head(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	return HeadOf(f)
}

// HeadOf reads the first bytes of r, for [Readable].
func HeadOf(r io.Reader) []byte {
	b := make([]byte, 16)
	n, _ := io.ReadFull(r, b)
	return b[:n]
}

// Probe is what ffprobe says of a movie: its first video stream, and its
// start timecode (the video stream's, a timecode track's, or the
// container's, as MXF keeps it).
type Probe struct {
	Codec      string // as the field writes it (CodecName): "ProRes 422 HQ", "DNxHD", "MPEG-2 Long GOP"
	Type       string // the codec's family: ProRes, DNxHD, DNxHR, H.264, H.265
	Resolution string
	FPS        string
	Frames     int
	Seconds    float64
	TCStart    string
	// Camera, Serial and Reel are what the container's tags say
	// (mediaTags), "" where they say nothing.
	Camera, Serial, Reel string
	// Audio is the file's sound: its audio streams and their channels
	// (none: Channels 0).
	Audio Audio
}

type probeJSON struct {
	Streams []struct {
		Type     string            `json:"codec_type"`
		Codec    string            `json:"codec_name"`
		Profile  string            `json:"profile"`
		Width    int               `json:"width"`
		Height   int               `json:"height"`
		Rate     string            `json:"avg_frame_rate"`
		BaseRate string            `json:"r_frame_rate"` // when the average is 0/0 (ProRes in MXF)
		Frames   string            `json:"nb_frames"`
		Duration string            `json:"duration"`
		Tags     map[string]string `json:"tags"`
		// Audio streams: their channels, sample rate and bit depth.
		Channels   int    `json:"channels"`
		SampleRate string `json:"sample_rate"`
		Bits       int    `json:"bits_per_sample"`
		RawBits    string `json:"bits_per_raw_sample"`
	} `json:"streams"`
	Format struct {
		Duration string            `json:"duration"`
		Tags     map[string]string `json:"tags"`
	} `json:"format"`
}

// Probe runs ffprobe on the file at p.
func (x *FFmpeg) Probe(ctx context.Context, p string) (*Probe, error) {
	var out, errb bytes.Buffer
	cmd := x.command(ctx, x.FFprobe, "-v", "error", "-show_entries",
		"stream=codec_type,codec_name,profile,width,height,avg_frame_rate,r_frame_rate,nb_frames,duration,channels,sample_rate,bits_per_sample,bits_per_raw_sample"+
			":stream_tags=timecode:format=duration:format_tags",
		"-of", "json", p)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ffprobe %s: %v: %s", p, err, firstLine(errb.String()))
	}
	pr, err := parseProbe(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("ffprobe %s: %w", p, err)
	}
	return pr, nil
}

// parseProbe reads ffprobe's JSON (see Probe for the entries asked).
func parseProbe(b []byte) (*Probe, error) {
	var v probeJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, errors.New("no video stream")
	}
	vi := -1
	for i, s := range v.Streams {
		if s.Type == "video" || (s.Type == "" && s.Width > 0) {
			vi = i
			break
		}
	}
	if vi < 0 {
		return nil, errors.New("no video stream")
	}
	s := v.Streams[vi]
	pr := &Probe{Codec: codecLabel(s.Codec, s.Profile), Type: codecType(s.Codec, s.Profile)}
	if s.Width > 0 && s.Height > 0 {
		pr.Resolution = fmt.Sprintf("%dx%d", s.Width, s.Height)
	}
	fps := FPSValue(s.Rate)
	if fps <= 0 {
		fps = FPSValue(s.BaseRate)
	}
	pr.FPS = FormatFPS(fps)
	pr.Frames, _ = strconv.Atoi(s.Frames)
	d := s.Duration
	if d == "" || d == "N/A" {
		d = v.Format.Duration
	}
	pr.Seconds, _ = strconv.ParseFloat(d, 64)
	if pr.Frames == 0 && fps > 0 && pr.Seconds > 0 {
		pr.Frames = int(pr.Seconds*fps + 0.5)
	}
	pr.Seconds = round3(pr.Seconds)
	// The start timecode: the video stream's own, a timecode (data)
	// stream's, the container's.
	tcs := []string{s.Tags["timecode"]}
	for _, o := range v.Streams {
		tcs = append(tcs, o.Tags["timecode"])
	}
	for _, tc := range append(tcs, v.Format.Tags["timecode"]) {
		if tc = timecode(tc); tc != "" {
			pr.TCStart = tc
			break
		}
	}
	pr.Camera, pr.Serial, pr.Reel = mediaTags(v.Format.Tags)
	for _, a := range v.Streams {
		if a.Type != "audio" {
			continue
		}
		pr.Audio.Streams++
		pr.Audio.Channels += max(a.Channels, 1)
		if pr.Audio.Streams == 1 {
			pr.Audio.Rate, _ = strconv.Atoi(a.SampleRate)
			pr.Audio.Codec = audioCodec(a.Codec)
			pr.Audio.Bits = a.Bits
			if pr.Audio.Bits == 0 && pr.Audio.Codec == "PCM" {
				pr.Audio.Bits, _ = strconv.Atoi(a.RawBits)
			}
		}
	}
	return pr, nil
}

// mediaTags reads the camera (make and model), its serial number and the
// reel name from a container's tags, by the keys cameras write: ARRI's
// com.arri.camera.*, QuickTime's com.apple.quicktime.make / model, Sony's
// and Blackmagic's; a muxer's own tags (ffmpeg's "encoder", MXF's
// product_name) are never taken for a camera.
func mediaTags(tags map[string]string) (camera, serial, reel string) {
	get := func(keys ...string) string {
		for _, k := range keys {
			for tk, v := range tags {
				if strings.EqualFold(tk, k) && strings.TrimSpace(v) != "" {
					return strings.TrimSpace(v)
				}
			}
		}
		return ""
	}
	mk := get("com.apple.quicktime.make", "com.arri.camera.CameraManufacturer", "com.sony.camera.manufacturer",
		"com.blackmagic-design.camera.manufacturer")
	model := get("com.arri.camera.CameraModel", "com.apple.quicktime.model", "com.sony.camera.modelName",
		"com.blackmagic-design.camera.model", "com.blackmagic-design.camera.cameraType")
	switch {
	case model == "":
		camera = ""
	case mk != "" && !strings.HasPrefix(strings.ToUpper(model), strings.ToUpper(mk)):
		camera = mk + " " + model
	default:
		camera = model
	}
	serial = get("com.arri.camera.CameraSerialNumber", "com.apple.quicktime.camera.identifier", "com.sony.camera.serialNo",
		"com.blackmagic-design.camera.serialNumber")
	reel = get("com.arri.camera.ReelName", "com.apple.quicktime.reelname", "reel_name", "com.blackmagic-design.camera.reel",
		"com.sony.camera.reelName")
	return camera, serial, reel
}

// codecLabel names a codec as the field writes it (CodecName) from
// ffprobe's codec name and profile.
func codecLabel(codec, profile string) string {
	p := strings.ToLower(profile)
	switch {
	case codec == "prores" && p != "" && !strings.Contains(p, "unknown"):
		return CodecName("ProRes " + profile)
	case codec == "dnxhd" && strings.HasPrefix(p, "dnxhr"):
		return CodecName(profile)
	}
	return CodecName(codec)
}

// codecType is a codec's family as a clip type.
func codecType(codec, profile string) string {
	switch codec {
	case "prores":
		return TypeProRes
	case "h264":
		return "H.264"
	case "hevc":
		return "H.265"
	case "mpeg2video":
		return "MPEG-2"
	case "dnxhd":
		if strings.HasPrefix(strings.ToUpper(profile), "DNXHR") {
			return "DNxHR"
		}
		return "DNxHD"
	}
	return ""
}

// guessedTypes are clip types told from names and folders alone (the
// camera family's habit), which what the file itself says overrides.
var guessedTypes = map[string]bool{TypeProRes: true, TypeVideo: true}

// Fill puts what the file says into clip c: the file's own codec and type
// over what the camera family's habit guessed (a sidecar's codec, the
// camera's own more precise name, stays), and its timecode, rate, length,
// resolution and sound: where a sidecar said otherwise, the media wins
// for what the media carries, and c.Conflicts says what the sidecar said.
func (p *Probe) Fill(c *Clip) {
	if p.Codec != "" && (c.Codec == "" || c.Codec == defaultCodec[c.Type]) {
		c.Codec = p.Codec
	}
	if p.Type != "" && guessedTypes[c.Type] {
		c.Type = p.Type
	}
	media := func(what string, v *string, m string) {
		if m == "" || *v == m {
			return
		}
		if *v != "" {
			c.Conflicts = append(c.Conflicts, fmt.Sprintf("%s: sidecar %s, media %s (the media's kept)", what, *v, m))
		}
		*v = m
	}
	media("resolution", &c.Resolution, p.Resolution)
	media("camera serial", &c.Serial, p.Serial)
	// The camera and reel the media names: over what the family's habit
	// guessed from names ("ARRI ALEXA"), and a sidecar's kept when it
	// says one (the camera's own record, maybe more precise).
	if p.Camera != "" && strings.HasPrefix(strings.ToUpper(p.Camera), strings.ToUpper(c.Camera)) {
		c.Camera = p.Camera
		if c.Family == "" {
			c.Family = familyOf(p.Camera)
		}
	}
	if p.Reel != "" {
		c.Reel = p.Reel
	}
	media("fps", &c.FPS, p.FPS)
	if c.Audio != nil && c.Audio.Channels != p.Audio.Channels {
		c.Conflicts = append(c.Conflicts, fmt.Sprintf("audio channels: sidecar %d, media %d (the media's kept)", c.Audio.Channels, p.Audio.Channels))
	}
	a := p.Audio
	c.Audio = &a
	media("start timecode", &c.TCStart, p.TCStart)
	if p.Frames > 0 && c.Frames != p.Frames {
		if c.Frames > 0 {
			c.Conflicts = append(c.Conflicts, fmt.Sprintf("frames: sidecar %d, media %d (the media's kept)", c.Frames, p.Frames))
		}
		c.Frames, c.Seconds = p.Frames, 0
	}
	if c.Seconds == 0 {
		c.Seconds = p.Seconds
		finish(c)
	}
}

// Poster writes a JPEG poster frame of the movie at in (320 pixels wide)
// to out, taken at seconds into it.
func (x *FFmpeg) Poster(ctx context.Context, in, out string, seconds float64) error {
	tmp := out + ".tmp.jpg"
	var errb bytes.Buffer
	cmd := x.command(ctx, x.FFmpeg, "-nostdin", "-hide_banner", "-v", "error", "-ss", strconv.FormatFloat(seconds, 'f', 3, 64),
		"-i", in, "-frames:v", "1", "-vf", "scale=320:-2", "-q:v", "5", "-update", "1", "-f", "image2", "-y", tmp)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("ffmpeg could not read a frame of %s: %v: %s", in, err, firstLine(errb.String()))
	}
	if fi, err := os.Stat(tmp); err != nil || fi.Size() == 0 {
		os.Remove(tmp)
		return fmt.Errorf("ffmpeg wrote no frame of %s", in)
	}
	return os.Rename(tmp, out)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
