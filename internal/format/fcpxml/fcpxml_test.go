package fcpxml

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/require"
)

// 29.97 drop-frame: the frame duration is 1001/30000 s, a start timecode
// counts dropped frames (10:00:00;00 is frame 1,078,920), the sequence
// starts at 01:00:00;00 and runs on; a path with a space is an escaped
// file:// URL; a clip that cannot be placed is left out.
func TestWriteDropFrame(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, &File{Title: "Day 01", FPS: "29.97", Width: 1920, Height: 1080, Clips: []Clip{
		{Name: "A001C001", SourceFile: "/Volumes/RAID/Day 01/A001C001.mxf", Proxy: "/Volumes/RAID/proxies/A001C001.mov", TCIn: "10:00:00;00", Frames: 60},
		{Name: "A001C002", SourceFile: "/Volumes/RAID/Day 01/A001C002.mxf", TCIn: "10:01:00;02", Frames: 30, Audio: true, AudioChannels: 4, AudioRate: 48000},
		{Name: "A001C003"},
	}}))
	var d xDoc
	require.NoError(t, xml.Unmarshal(b.Bytes(), &d), b.String())
	require.Equal(t, "1.10", d.Version)
	require.Equal(t, "1001/30000s", d.Resources.Format.FrameDuration)
	require.Len(t, d.Resources.Assets, 2)
	a := d.Resources.Assets[0]
	require.Equal(t, "1079998920/30000s", a.Start)
	require.Equal(t, "60060/30000s", a.Duration)
	require.Equal(t, "file:///Volumes/RAID/Day%2001/A001C001.mxf", a.Reps[0].Src)
	require.Equal(t, []xMediaRep{{"original-media", "file:///Volumes/RAID/Day%2001/A001C001.mxf"},
		{"proxy-media", "file:///Volumes/RAID/proxies/A001C001.mov"}}, a.Reps)
	require.Len(t, d.Resources.Assets[1].Reps, 1, "no proxy: no proxy-media")
	require.Equal(t, "1", d.Resources.Assets[1].HasAudio)
	require.Equal(t, [3]string{"1", "4", "48k"}, [3]string{d.Resources.Assets[1].Sources, d.Resources.Assets[1].Channels, d.Resources.Assets[1].Rate},
		"the clip's audio: one source of four channels at 48 kHz")
	require.Equal(t, [4]string{}, [4]string{a.HasAudio, a.Sources, a.Channels, a.Rate}, "no sound: no audio attributes")
	seq := d.Event.Project.Sequence
	require.Equal(t, "DF", seq.TCFormat)
	require.Equal(t, "107999892/30000s", seq.TCStart)
	require.Equal(t, "90090/30000s", seq.Duration)
	require.Equal(t, "108059952/30000s", seq.Spine[1].Offset, "the second clip right after the first")
	require.Equal(t, "1081800720/30000s", d.Resources.Assets[1].Start, "10:01:00;02 is frame 1,080,720")
}

func TestWriteWholeRates(t *testing.T) {
	num, den, ok := frameDuration("25")
	require.True(t, ok)
	require.Equal(t, [2]int{100, 2500}, [2]int{num, den})
	num, den, _ = frameDuration("23.976")
	require.Equal(t, [2]int{1001, 24000}, [2]int{num, den})
	require.Error(t, Write(&bytes.Buffer{}, &File{Title: "x"}))
}
