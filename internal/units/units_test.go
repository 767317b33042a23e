package units

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"4096", 4096},
		{"4096B", 4096},
		{"4096 b", 4096},
		{"  2GB  ", 2_000_000_000},
		{"2 GB", 2_000_000_000},
		{"2G", 2_000_000_000},
		{"2gb", 2_000_000_000},
		{"500MB", 500_000_000},
		{"500M", 500_000_000},
		{"1.5TB", 1_500_000_000_000},
		{"1.5 T", 1_500_000_000_000},
		{"10kB", 10_000},
		{"10KB", 10_000},
		{"10k", 10_000},
		{"64KiB", 65_536},
		{"64kib", 65_536},
		{"1MiB", 1 << 20},
		{"2GiB", 2 << 30},
		{"1.5GiB", 3 << 29},
		{"1TiB", 1 << 40},
		{"2PB", 2_000_000_000_000_000},
		{".5GB", 500_000_000},
		{"1.", 1},
		{"0.4", 0},
		{"0.5", 1}, // rounded to the nearest byte
		{"9223372036854775807", math.MaxInt64},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if err != nil {
			t.Errorf("ParseBytes(%q): unexpected error %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseBytesErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantMsg string
	}{
		{"2XB", `invalid size "2XB": use a number with an optional unit such as 500MB, 2GB, 1MiB`},
		{"", `invalid size "": use a number`},
		{"B", `invalid size "B": use a number`},
		{"GB", `invalid size "GB": use a number`},
		{"-1GB", `invalid size "-1GB": use a number`},
		{"+1GB", `invalid size "+1GB": use a number`},
		{"1e9", `invalid size "1e9": use a number`},
		{"1.2.3GB", `invalid size "1.2.3GB": use a number`},
		{".", `invalid size ".": use a number`},
		{"2 G B", `invalid size "2 G B": use a number`},
		{"2GB/s", `invalid size "2GB/s": use a number`},
		{"10Gbit", `invalid size "10Gbit": use a number`},
		{"inf", `invalid size "inf": use a number`},
		{"NaN", `invalid size "NaN": use a number`},
		{"0x10", `invalid size "0x10": use a number`},
		{"1,5GB", `invalid size "1,5GB": use a number`},
		{"9223372036854775808", `invalid size "9223372036854775808": too large`},
		{"10000000PB", `invalid size "10000000PB": too large`},
		{"9.3EB", `invalid size "9.3EB": use a number`}, // EB is not accepted
		{"9300000000000000000.5", `invalid size "9300000000000000000.5": too large`},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", tt.in, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.wantMsg) {
			t.Errorf("ParseBytes(%q) error = %q, want it to start with %q", tt.in, err, tt.wantMsg)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0},
		{"1000", 1000},
		{"1000/s", 1000},
		{"1000B/s", 1000},
		{"550MB/s", 550e6},
		{"550 MB/s", 550e6},
		{"550mb/s", 550e6},
		{"550MB", 550e6},
		{"550MB/sec", 550e6},
		{"2.2GB/s", 2.2e9},
		{"1.25 GB/s", 1.25e9},
		{"2G/s", 2e9},
		{"100MiB/s", 100 << 20},
		{"1GiB/s", 1 << 30},
		{"10Gbit/s", 1.25e9},
		{"10 Gbit/s", 1.25e9},
		{"10gbits/s", 1.25e9},
		{"10Gbit", 1.25e9},
		{"10Gbps", 1.25e9},
		{"400Mbit/s", 50e6},
		{"400Mbps", 50e6},
		{"8bit/s", 1},
		{"1TB/s", 1e12},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if err != nil {
			t.Errorf("ParseRate(%q): unexpected error %v", tt.in, err)
			continue
		}
		if math.Abs(got-tt.want) > 1e-6*math.Max(1, tt.want) {
			t.Errorf("ParseRate(%q) = %g, want %g", tt.in, got, tt.want)
		}
	}
}

func TestParseRateErrors(t *testing.T) {
	const hint = ": use a number with an optional unit such as 550MB/s, 2.2GB/s, 10Gbit/s"
	for _, in := range []string{
		"", "fast", "GB/s", "-1GB/s", "1e9", "2XB/s", "2GB/h", "2GB/s/s",
		"10Gb/s extra", "1.2.3MB/s", "inf", "10 Gbit / s",
	} {
		got, err := ParseRate(in)
		if err == nil {
			t.Errorf("ParseRate(%q) = %g, want an error", in, got)
			continue
		}
		want := `invalid rate "` + in + `"` + hint
		if err.Error() != want {
			t.Errorf("ParseRate(%q) error = %q, want %q", in, err, want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{999, "999 B"},
		{1000, "1.00 kB"},
		{1500, "1.50 kB"},
		{1234, "1.23 kB"},
		{9994, "9.99 kB"},
		{9996, "10.0 kB"},
		{12_345_678, "12.3 MB"},
		{99_960_000, "100 MB"},
		{123_456_789, "123 MB"},
		{999_499_999, "999 MB"},
		{999_500_000, "1.00 GB"},
		{2_000_000_000, "2.00 GB"},
		{1_234_567_890_123, "1.23 TB"},
		{5 * PB, "5.00 PB"},
		{math.MaxInt64, "9.22 EB"},
		{-1500, "-1.50 kB"},
		{-5, "-5 B"},
		{math.MinInt64, "-9.22 EB"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.in); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatRate(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0 MB/s"},
		{364.1281317037921, "0.4 kB/s"},
		{12.5, "0.0 kB/s"},
		{49_940, "49.9 kB/s"},
		{50e3, "0.1 MB/s"},
		{45.3e6, "45.3 MB/s"},
		{1e6, "1.0 MB/s"},
		{99.9e6, "99.9 MB/s"},
		{100e6, "0.100 GB/s"},
		{550e6, "0.550 GB/s"},
		{2.2e9, "2.200 GB/s"},
		{12.5e9, "12.500 GB/s"},
	}
	for _, tt := range tests {
		if got := FormatRate(tt.in); got != tt.want {
			t.Errorf("FormatRate(%g) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTBPerHour(t *testing.T) {
	tests := []struct {
		bytes int64
		d     time.Duration
		want  float64
	}{
		{TB, time.Hour, 1},
		{GB, time.Second, 3.6}, // 1 GB/s = 3.6 TB/hour
		{550 * MB, time.Second, 1.98},
		{2 * TB, 30 * time.Minute, 4},
		{0, time.Hour, 0},
		{TB, 0, 0},
		{TB, -time.Second, 0},
	}
	for _, tt := range tests {
		got := TBPerHour(tt.bytes, tt.d)
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("TBPerHour(%d, %v) = %g, want %g", tt.bytes, tt.d, got, tt.want)
		}
	}
}

func TestFormatTBPerHour(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.000 TB/hour"},
		{1.98, "1.980 TB/hour"},
		{3.6, "3.600 TB/hour"},
		{12.3456, "12.346 TB/hour"},
	}
	for _, tt := range tests {
		if got := FormatTBPerHour(tt.in); got != tt.want {
			t.Errorf("FormatTBPerHour(%g) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := FormatTBPerHour(TBPerHour(550*MB, time.Second)); got != "1.980 TB/hour" {
		t.Errorf("550 MB/s = %q, want 1.980 TB/hour", got)
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Millisecond, "0s"},
		{600 * time.Millisecond, "1s"},
		{12 * time.Second, "12s"},
		{59*time.Second + 600*time.Millisecond, "1m00s"},
		{4*time.Minute + 5*time.Second, "4m05s"},
		{time.Hour, "1h00m00s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1h02m03s"},
		{26*time.Hour + 5*time.Second, "26h00m05s"},
		{-12 * time.Second, "-12s"},
		{-300 * time.Millisecond, "0s"},
		{math.MinInt64, "-2562047h47m16s"},
		{math.MaxInt64, "2562047h47m16s"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.in); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A TB/hour of bytes copied: "nothing copied" where no byte was (a rate
// would have nothing to tell), a dash with no time, else the figure.
func TestFormatCopiedTBPerHour(t *testing.T) {
	for _, c := range []struct {
		bytes int64
		v     float64
		want  string
	}{
		{0, 0, "nothing copied"},
		{0, 1.5, "nothing copied"},
		{1e9, 0, "- TB/hour"},
		{1e9, 1.98, "1.980 TB/hour"},
	} {
		if got := FormatCopiedTBPerHour(c.bytes, c.v); got != c.want {
			t.Errorf("FormatCopiedTBPerHour(%d, %g) = %q, want %q", c.bytes, c.v, got, c.want)
		}
	}
}
