package clips

import "testing"

func TestTimecodeArithmetic(t *testing.T) {
	for _, c := range []struct {
		start  string
		frames int
		fps    string
		out    string
	}{
		{"10:00:01:00", 50, "25", "10:00:03:00"},
		{"01:02:03:04", 48, "23.976", "01:02:05:04"},
		{"00:59:58:00", 60, "30", "01:00:00:00"},
		{"23:59:59:24", 1, "25", "00:00:00:00"},        // wraps at 24 hours
		{"00:00:59;29", 1, "29.97", "00:01:00;02"},     // frames 0 and 1 dropped at minute 1
		{"00:09:59;29", 1, "29.97", "00:10:00;00"},     // not at minute 10
		{"00:00:00;00", 17982, "29.97", "00:10:00;00"}, // ten minutes of 29.97 drop-frame
		{"01:00:00;00", 3600, "59.94", "01:01:00;04"},  // minute 60 keeps all its frames
		{"10:00:00:00", 0, "25", ""},
		{"10:00:00:00", 10, "", ""},
		{"not a tc", 10, "25", ""},
		{"10:00:00:30", 10, "25", ""}, // frame 30 does not exist at 25
	} {
		if got := TCOut(c.start, c.frames, c.fps); got != c.out {
			t.Errorf("TCOut(%q, %d, %q) = %q, want %q", c.start, c.frames, c.fps, got, c.out)
		}
	}
	// Every drop-frame count round-trips over a day's first hour.
	for n := 0; n < 108000; n += 7 {
		tc := FramesTC(n, 30, true)
		back, drop, ok := TCFrames(tc, 30)
		if !ok || !drop || back != n {
			t.Fatalf("frame %d -> %s -> %d (drop %v ok %v)", n, tc, back, drop, ok)
		}
	}
}
