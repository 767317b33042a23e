package clips

import (
	"math"

	smpte "github.com/dit-org/dit/internal/format/timecode"
)

// Timecode arithmetic (SMPTE 12M): a timecode HH:MM:SS:FF counts frames at
// a whole base rate (24 for 23.976, 30 for 29.97); drop-frame timecode
// (29.97 and 59.94, written with ';' before the frames) skips frame
// numbers 0 and 1 (0-3 at 59.94) at the start of every minute but each
// tenth, so it keeps to the clock.

// TCBase is the timecode's whole frames per second for a frame rate
// ("23.976" counts 24); 0 when the rate is unknown.
func TCBase(fps string) int { return int(math.Round(FPSValue(fps))) }

// TCFrames is the frame count of timecode tc at base (drop-frame when tc
// says so).
func TCFrames(tc string, base int) (n int, drop, ok bool) { return smpte.Frames(tc, base) }

// FramesTC writes frame count n at base as timecode (drop-frame with
// ';' before the frames).
func FramesTC(n, base int, drop bool) string { return smpte.TC(n, base, drop) }

// TCOut is the timecode just after a clip's last frame (exclusive, as an
// ALE's End and an edit's out point: out minus in is the duration), from
// its start timecode, length in frames and rate; "" when any is unknown.
func TCOut(start string, frames int, fps string) string {
	base := TCBase(fps)
	n, drop, ok := TCFrames(start, base)
	if !ok || frames <= 0 {
		return ""
	}
	return FramesTC(n+frames, base, drop)
}
