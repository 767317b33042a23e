package testcards

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// FamilyCard is a small card in the folder structure of one camera
// family, made by [MakeFamilyCards]: its clips as they were made.
type FamilyCard struct {
	Family string // ARRI, Sony, Blackmagic, RED
	Label  string // the card's folder name: A001, B001, ...
	Path   string
	Clips  []FamilyClip
}

// FamilyClip is a clip of a family card as it was made: what a reader of
// the card should find.
type FamilyClip struct {
	Name  string // A001C001_230512_R2EC, C0001, ...
	Media string // card-relative path of its (first) media file
	// TCIn, Frames and FPS are the clip's start timecode, length and rate
	// (the media's; a BRAW's its sidecar's); "" and 0 for an R3D (only
	// RED's SDK reads them).
	TCIn   string
	Frames int
	FPS    string
	// Channels are the media's audio channels; -1 where only the camera
	// maker's SDK reads them (BRAW, R3D).
	Channels int
	// SidecarFrames and SidecarChannels are what the clip's sidecar says
	// where it disagrees with the media (0: it agrees, or says nothing).
	SidecarFrames, SidecarChannels int
	// Movie: ffmpeg made the media (so ffmpeg reads it, and a proxy of
	// it can be made); else it is a few bytes in the family's format's
	// name only.
	Movie bool
}

// MakeFamilyCards makes one small card per camera family in folder out,
// with ffmpeg (the path of an ffmpeg with ProRes, DNxHD, libx264 and
// AAC): a few frames a clip at 640x360, so that a test offloads them in
// seconds.
//
//	A001 ARRI        A001R2EC/A001C001_230512_R2EC.mxf (ProRes 422 HQ in
//	                 MXF, 23.976 fps, two mono 24-bit PCM tracks) with
//	                 ARRI's clip XML; A001C002_... with four tracks
//	B001 Sony        PRIVATE/M4ROOT/CLIP/C0001.MP4 (XAVC-like H.264 and
//	                 AAC stereo, 29.97 fps drop-frame timecode) with
//	                 C0001M01.XML, which says 60 frames and 4 channels
//	                 (the file: 48 and 2); C0002 whose XML agrees
//	C001 Blackmagic  C001_08151432_C001.braw (not BRAW: ffmpeg writes none)
//	                 with its .sidecar (25 fps, 50 frames, timecode);
//	                 C001_08151440_C002.mov (ProRes 422 LT, 25 fps, PCM
//	                 stereo, Blackmagic's QuickTime camera tags)
//	D001 RED         D001_0512AB.RDM/D001_C001_0512AB.RDC/..._001.R3D and
//	                 _002.R3D (not R3D: a clip by its folders and names)
//
// A card folder that exists is an error: nothing is overwritten.
func MakeFamilyCards(ctx context.Context, ffmpeg, out string) ([]FamilyCard, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var cards []FamilyCard
	for _, card := range []func() (FamilyCard, []familyFile){arriCard, sonyCard, bmdCard, redCard} {
		c, files := card()
		c.Path = filepath.Join(out, c.Label)
		if err := os.Mkdir(c.Path, 0o755); err != nil {
			return nil, fmt.Errorf("card %s: %w (never written into a folder that exists)", c.Label, err)
		}
		cards = append(cards, c)
		for _, f := range files {
			if err := f.make(ctx, ffmpeg, c.Path); err != nil {
				return nil, fmt.Errorf("card %s: %w", c.Label, err)
			}
		}
	}
	return cards, nil
}

// familyFile is a file of a family card: a movie ffmpeg makes (args,
// before the output), or text.
type familyFile struct {
	rel  string
	args []string
	text string
}

func (f familyFile) make(ctx context.Context, ffmpeg, card string) error {
	p := filepath.Join(card, filepath.FromSlash(f.rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if f.args == nil {
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
		if err != nil {
			return err
		}
		_, err = fh.WriteString(f.text)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		return err
	}
	args := append([]string{"-nostdin", "-hide_banner", "-v", "error", "-n"}, f.args...)
	args = append(args, "-fflags", "+bitexact", "-flags", "+bitexact", p)
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ffmpeg could not make %s: %v: %s", f.rel, err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// video is ffmpeg's input of frames frames of test source src at rate
// (a fraction: 24000/1001), 640x360; tones are audio inputs of the same
// length, one a channel group (mono: mapped once each).
func video(src, rate string, frames int) []string {
	return []string{"-f", "lavfi", "-i", fmt.Sprintf("%s=s=640x360:r=%s:d=%s", src, rate, seconds(rate, frames))}
}

func tone(hz int, rate string, frames int) []string {
	return []string{"-f", "lavfi", "-i", fmt.Sprintf("sine=f=%d:sample_rate=48000:d=%s", hz, seconds(rate, frames))}
}

// seconds is how long frames frames last at rate ("30000/1001").
func seconds(rate string, frames int) string {
	n, d, _ := strings.Cut(rate, "/")
	num, _ := strconv.ParseFloat(n, 64)
	den := 1.0
	if d != "" {
		den, _ = strconv.ParseFloat(d, 64)
	}
	return strconv.FormatFloat(float64(frames)*den/num, 'f', 6, 64)
}

// arriMXF is an ALEXA's ProRes 422 HQ MXF of frames frames at 23.976
// with tracks mono 24-bit PCM tracks, starting at tc.
func arriMXF(frames, tracks int, tc string) []string {
	const rate = "24000/1001"
	args := append(video("testsrc2", rate, frames), tone(1000, rate, frames)...)
	args = append(args, "-map", "0")
	for range tracks {
		args = append(args, "-map", "1")
	}
	return append(args, "-c:v", "prores", "-profile:v", "3", "-pix_fmt", "yuv422p10le", "-c:a", "pcm_s24le", "-timecode", tc)
}

func arriClipXML(name string, frames int, tc string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<ClipMetadata camera="ALEXA Mini LF" serial="2914">
	<Clip name="%s" reel="A001" frames="%d"/>
	<Recording codec="Apple ProRes 422 HQ" sensorFps="23.976" projectFps="23.976" width="640" height="360"/>
	<Timecode start="%s"/>
</ClipMetadata>
`, name, frames, tc)
}

func arriCard() (FamilyCard, []familyFile) {
	c := FamilyCard{Family: "ARRI", Label: "A001"}
	var files []familyFile
	for i, x := range []struct {
		frames, tracks int
		tc             string
	}{{24, 2, "14:21:10:05"}, {36, 4, "14:25:00:00"}} {
		name := fmt.Sprintf("A001C%03d_230512_R2EC", i+1)
		rel := "A001R2EC/" + name + ".mxf"
		files = append(files, familyFile{rel: rel, args: arriMXF(x.frames, x.tracks, x.tc)},
			familyFile{rel: "A001R2EC/" + name + ".xml", text: arriClipXML(name, x.frames, x.tc)})
		c.Clips = append(c.Clips, FamilyClip{Name: name, Media: rel, TCIn: x.tc, Frames: x.frames, FPS: "23.976", Channels: x.tracks, Movie: true})
	}
	return c, files
}

// sonyLTC is a drop-frame timecode as Sony's XML writes it: FFSSMMHH in
// BCD, the drop-frame flag (0x40) in the frames' byte.
func sonyLTC(tc string) string {
	var h, m, s, f int
	fmt.Sscanf(strings.ReplaceAll(tc, ";", ":"), "%d:%d:%d:%d", &h, &m, &s, &f)
	bcd := func(v int) int { return v/10<<4 | v%10 }
	return fmt.Sprintf("%02X%02X%02X%02X", bcd(f)|0x40, bcd(s), bcd(m), bcd(h))
}

func sonyM01(frames, channels int, tc string) string {
	ports := strings.Repeat(`<AudioRecPort port="DIRECT" audioCodec="LPCM24"/>`, channels)
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<NonRealTimeMeta xmlns="urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.20">
	<Duration value="%d"/>
	<LtcChangeTable tcFps="30" halfStep="false">
		<LtcChange frameCount="0" value="%s" status="increment"/>
	</LtcChangeTable>
	<VideoFormat>
		<VideoFrame videoCodec="AVC_1920_1080_HP@L41" captureFps="29.97p" formatFps="29.97p"/>
	</VideoFormat>
	<AudioFormat numOfChannel="%d">%s</AudioFormat>
	<Device manufacturer="Sony" modelName="ILME-FX6V" serialNo="4012345"/>
</NonRealTimeMeta>
`, frames, sonyLTC(tc), channels, ports)
}

func sonyCard() (FamilyCard, []familyFile) {
	c := FamilyCard{Family: "Sony", Label: "B001"}
	var files []familyFile
	const rate = "30000/1001"
	for i, x := range []struct {
		frames, sideFrames, sideChannels int
		tc                               string
	}{{48, 60, 4, "01:00:00;00"}, {30, 30, 2, "01:10:00;00"}} {
		name := fmt.Sprintf("C%04d", i+1)
		rel := "PRIVATE/M4ROOT/CLIP/" + name + ".MP4"
		args := append(video("testsrc", rate, x.frames), tone(440, rate, x.frames)...)
		args = append(args, "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-timecode", x.tc)
		files = append(files, familyFile{rel: rel, args: args},
			familyFile{rel: "PRIVATE/M4ROOT/CLIP/" + name + "M01.XML", text: sonyM01(x.sideFrames, x.sideChannels, x.tc)})
		k := FamilyClip{Name: name, Media: rel, TCIn: x.tc, Frames: x.frames, FPS: "29.97", Channels: 2, Movie: true}
		if x.sideFrames != x.frames {
			k.SidecarFrames = x.sideFrames
		}
		if x.sideChannels != 2 {
			k.SidecarChannels = x.sideChannels
		}
		c.Clips = append(c.Clips, k)
	}
	return c, files
}

func bmdCard() (FamilyCard, []familyFile) {
	c := FamilyCard{Family: "Blackmagic", Label: "C001"}
	braw := "C001_08151432_C001"
	side := fmt.Sprintf(`{"camera_type": "Blackmagic URSA Mini Pro 12K", "reel_name": "C001", "frame_rate": "25", "frame_count": %d, "timecode": "%s"}`+"\n",
		50, "15:00:00:00")
	mov := "C001_08151440_C002"
	const rate = "25"
	args := append(video("smptehdbars", rate, 25), tone(440, rate, 25)...)
	args = append(args, "-ac", "2", "-c:v", "prores_ks", "-profile:v", "1", "-c:a", "pcm_s24le", "-timecode", "15:10:00:00",
		"-movflags", "use_metadata_tags", "-metadata", "com.blackmagic-design.camera.manufacturer=Blackmagic Design",
		"-metadata", "com.blackmagic-design.camera.model=URSA Mini Pro 12K")
	files := []familyFile{{rel: braw + ".braw", text: "not BRAW: a test card's stand-in for " + braw + "\n"},
		{rel: braw + ".sidecar", text: side}, {rel: mov + ".mov", args: args}}
	c.Clips = []FamilyClip{{Name: braw, Media: braw + ".braw", TCIn: "15:00:00:00", Frames: 50, FPS: "25", Channels: -1},
		{Name: mov, Media: mov + ".mov", TCIn: "15:10:00:00", Frames: 25, FPS: "25", Channels: 2, Movie: true}}
	return c, files
}

func redCard() (FamilyCard, []familyFile) {
	c := FamilyCard{Family: "RED", Label: "D001"}
	var files []familyFile
	name := "D001_C001_0512AB"
	dir := "D001_0512AB.RDM/" + name + ".RDC/"
	for _, seg := range []string{"_001.R3D", "_002.R3D"} {
		files = append(files, familyFile{rel: dir + name + seg, text: "not R3D: a test card's stand-in for " + name + seg + "\n"})
	}
	c.Clips = []FamilyClip{{Name: name, Media: dir + name + "_001.R3D", Channels: -1}}
	return c, files
}
