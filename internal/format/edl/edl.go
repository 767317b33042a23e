// Package edl writes CMX 3600 edit decision lists: the plain-text event
// lists every editing suite (Avid Media Composer, DaVinci Resolve,
// Premiere Pro) imports and relinks by reel, clip name and source file.
//
// dit writes one EDL per day (a job) and frame rate: the day's clips
// back to back on a record timeline that starts at 01:00:00:00, each
// event the whole clip (its source in and out, out exclusive), with the
// comments Resolve and OpenTimelineIO read to relink it:
//
//	TITLE: Day01
//	FCM: NON-DROP FRAME
//
//	001  A001     V     C        10:00:01:00 10:00:03:00 01:00:00:00 01:00:02:00
//	* FROM CLIP NAME: A001C001_230512_R2EC
//	* FROM CLIP: /Volumes/RAID/Day01/A001/A001C001_230512_R2EC.mxf
//	* SOURCE FILE: /Volumes/RAID/Day01/A001/A001C001_230512_R2EC.mxf
//
// The reel is the clip's reel (the camera roll, A001), at most 8
// characters of A-Z, 0-9 and _ (others become _; longer is cut, as CMX
// 3600 allows no more); "AX" when unknown. FCM is DROP FRAME for a
// drop-frame rate (29.97, 59.94: timecodes written with ';'), and the
// record timecodes then drop frames too. Tracks: V for a clip without
// sound, B (picture and the first audio channel) for one with audio.
// Lines end in CRLF-free "\n"; every reader tried accepts it.
package edl

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/dit-org/dit/internal/format/timecode"
)

// Event is one clip of the list.
type Event struct {
	Reel, Name, SourceFile string
	// TCIn is the clip's first frame, Frames its length.
	TCIn   string
	Frames int
	Audio  bool // the clip has sound
}

// File is one EDL: its title, its rate ("23.976", "25", "29.97") and its
// events.
type File struct {
	Title  string
	FPS    string
	Events []Event
}

// RecordStart is the record timeline's first frame.
const RecordStart = "01:00:00:00"

// Write writes f as a CMX 3600 EDL. An event without a start timecode or
// a length is left out (it cannot be placed), and said in a comment.
func Write(w io.Writer, f *File) error {
	base := timecode.Base(f.FPS)
	if base <= 0 {
		return fmt.Errorf("EDL %q: no frame rate", f.Title)
	}
	drop := false
	for _, e := range f.Events {
		if strings.Contains(e.TCIn, ";") {
			drop = true
		}
	}
	bw := bufio.NewWriter(w)
	fcm := "NON-DROP FRAME"
	if drop {
		fcm = "DROP FRAME"
	}
	fmt.Fprintf(bw, "TITLE: %s\nFCM: %s\n\n", oneLine(f.Title), fcm)
	start := RecordStart
	if drop {
		start = RecordStart[:8] + ";" + RecordStart[9:]
	}
	rec, _, _ := timecode.Frames(start, base)
	n := 0
	for _, e := range f.Events {
		in, _, ok := timecode.Frames(e.TCIn, base)
		if !ok || e.Frames <= 0 {
			fmt.Fprintf(bw, "* NOT PLACED (no start timecode or length): %s\n", oneLine(e.Name))
			continue
		}
		n++
		track := "V"
		if e.Audio {
			track = "B"
		}
		fmt.Fprintf(bw, "%03d  %-8s %-5s C        %s %s %s %s\n", n, Reel(e.Reel), track,
			timecode.TC(in, base, drop), timecode.TC(in+e.Frames, base, drop),
			timecode.TC(rec, base, drop), timecode.TC(rec+e.Frames, base, drop))
		fmt.Fprintf(bw, "* FROM CLIP NAME: %s\n", oneLine(e.Name))
		if e.SourceFile != "" {
			// FROM CLIP: the media (Avid's, OpenTimelineIO's);
			// SOURCE FILE: Resolve's and Avid's EDL Manager's.
			fmt.Fprintf(bw, "* FROM CLIP: %s\n* SOURCE FILE: %s\n", oneLine(e.SourceFile), oneLine(e.SourceFile))
		}
		fmt.Fprintln(bw)
		rec += e.Frames
	}
	return bw.Flush()
}

// Reel is a reel name as CMX 3600 takes it: at most 8 characters of
// A-Z, 0-9 and _, "AX" when empty.
func Reel(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, s)
	if len(s) > 8 {
		s = s[:8]
	}
	if s == "" {
		return "AX"
	}
	return s
}

// oneLine keeps a value on its line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
