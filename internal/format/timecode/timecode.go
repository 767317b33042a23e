// Package timecode is SMPTE 12M timecode arithmetic for the editorial
// formats (internal/format/edl, internal/format/fcpxml), as
// internal/clips does it (a format package imports no engine package):
// HH:MM:SS:FF counts frames at a whole base rate (24 for 23.976, 30 for
// 29.97); drop-frame timecode (29.97 and 59.94, written with ";") skips
// frame numbers 0 and 1 (0-3 at 59.94) at the start of every minute but
// each tenth, so it keeps to the clock.
package timecode

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Base is the whole frames per second of a rate ("23.976" counts 24);
// 0 when it is not a number.
func Base(fps string) int {
	v, err := strconv.ParseFloat(strings.TrimSpace(fps), 64)
	if err != nil || v <= 0 {
		return 0
	}
	return int(math.Round(v))
}

// dropFrames is how many frame numbers drop-frame timecode skips each
// minute at base, 0 where it is not used.
func dropFrames(base int) int {
	switch base {
	case 30:
		return 2
	case 60:
		return 4
	}
	return 0
}

// Frames is the frame count of timecode tc at base (drop-frame when tc
// says so with ';' or '.'); ok is false when tc is not a timecode.
func Frames(tc string, base int) (n int, drop, ok bool) {
	tc = strings.TrimSpace(tc)
	if len(tc) != 11 || base <= 0 {
		return 0, false, false
	}
	drop = tc[8] == ';' || tc[8] == '.'
	var p [4]int
	for i := range p {
		v, err := strconv.Atoi(tc[3*i : 3*i+2])
		if err != nil || v < 0 {
			return 0, false, false
		}
		p[i] = v
	}
	if p[1] > 59 || p[2] > 59 || p[3] >= base {
		return 0, false, false
	}
	n = ((p[0]*60+p[1])*60+p[2])*base + p[3]
	if d := dropFrames(base); drop && d > 0 {
		mins := p[0]*60 + p[1]
		n -= d * (mins - mins/10)
	} else {
		drop = false
	}
	return n, drop, true
}

// TC writes frame count n at base as timecode (drop-frame, with
// ';', when drop and base allows it); it wraps at 24 hours.
func TC(n, base int, drop bool) string {
	d := dropFrames(base)
	if !drop || d == 0 {
		n %= 24 * 3600 * base
		return fmt.Sprintf("%02d:%02d:%02d:%02d", n/(3600*base), n/(60*base)%60, n/base%60, n%base)
	}
	perMin := 60*base - d
	per10 := 10*perMin + d
	n %= 24 * 6 * per10
	tens, rem := n/per10, n%per10
	n += 9 * d * tens
	if rem > d {
		n += d * ((rem - d) / perMin)
	}
	return fmt.Sprintf("%02d:%02d:%02d;%02d", n/(3600*base), n/(60*base)%60, n/base%60, n%base)
}
