package edl

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// A 29.97 drop-frame day: FCM says so, source and record timecodes drop
// frames (a clip across the minute), the record timeline runs on, reels
// are CMX 3600's, a clip without timecode is not placed but named.
func TestWriteDropFrame(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, &File{Title: "Day 01", FPS: "29.97", Events: []Event{
		{Reel: "A001", Name: "A001C001", SourceFile: "/Volumes/RAID/Day01/A001C001.mxf", TCIn: "10:00:59;28", Frames: 4},
		{Reel: "a-camera roll 7", Name: "A001C002", TCIn: "10:01:10;00", Frames: 1800},
		{Reel: "A001", Name: "A001C003"},
	}}))
	require.Equal(t, `TITLE: Day 01
FCM: DROP FRAME

001  A001     V     C        10:00:59;28 10:01:00;04 01:00:00;00 01:00:00;04
* FROM CLIP NAME: A001C001
* FROM CLIP: /Volumes/RAID/Day01/A001C001.mxf
* SOURCE FILE: /Volumes/RAID/Day01/A001C001.mxf

002  A_CAMERA V     C        10:01:10;00 10:02:10;02 01:00:00;04 01:01:00;06
* FROM CLIP NAME: A001C002

* NOT PLACED (no start timecode or length): A001C003
`, b.String())
}

func TestWriteNeedsARate(t *testing.T) {
	require.Error(t, Write(&bytes.Buffer{}, &File{Title: "x"}))
	require.Equal(t, "AX", Reel(""))
}
