package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Decimal byte multiples (what dit shows to people).
const (
	KB int64 = 1000
	MB       = 1000 * KB
	GB       = 1000 * MB
	TB       = 1000 * GB
	PB       = 1000 * TB
)

// Binary byte multiples (accepted on input).
const (
	KiB int64 = 1 << 10
	MiB       = 1 << 20
	GiB       = 1 << 30
	TiB       = 1 << 40
	PiB       = 1 << 50
)

const (
	sizeHint = "use a number with an optional unit such as 500MB, 2GB, 1MiB"
	rateHint = "use a number with an optional unit such as 550MB/s, 2.2GB/s, 10Gbit/s"
)

// byteUnits maps a lowercased size unit to its multiplier in bytes.
var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"k": KB, "kb": KB,
	"m": MB, "mb": MB,
	"g": GB, "gb": GB,
	"t": TB, "tb": TB,
	"p": PB, "pb": PB,
	"kib": KiB, "mib": MiB, "gib": GiB, "tib": TiB, "pib": PiB,
}

// bitUnits maps a lowercased bit unit (without "/s") to its multiplier in
// bits. Bits are only recognised when spelled "bit" or "bits".
var bitUnits = map[string]float64{
	"bit": 1, "bits": 1,
	"kbit": 1e3, "kbits": 1e3,
	"mbit": 1e6, "mbits": 1e6,
	"gbit": 1e9, "gbits": 1e9,
	"tbit": 1e12, "tbits": 1e12,
}

// bpsUnits are the "per second" bit spellings such as "Gbps".
var bpsUnits = map[string]float64{
	"bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12,
}

// splitNumber splits s (already trimmed) into a number made only of digits
// and at most one decimal point, and the unit that follows it with any
// spaces in between removed. ok is false when there is no valid number.
func splitNumber(s string) (num, unit string, ok bool) {
	i := 0
	dots := 0
	digits := 0
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
		} else if c == '.' {
			dots++
		} else {
			break
		}
		i++
	}
	if digits == 0 || dots > 1 {
		return "", "", false
	}
	return s[:i], strings.TrimSpace(s[i:]), true
}

// ParseBytes parses a size such as "2GB", "2 GB", "500MB", "1.5TB", "4096",
// "64KiB", "1MiB" or "10kB" and returns it in bytes. Decimal units (k, M, G,
// T, P, with an optional trailing B) are powers of 1000; binary units (KiB,
// MiB, GiB, TiB, PiB) are powers of 1024. A plain number is bytes. Unit
// letters are case-insensitive. Fractions are rounded to the nearest byte.
func ParseBytes(s string) (int64, error) {
	num, unit, ok := splitNumber(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHint)
	}
	mult, ok := byteUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHint)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("invalid size %q: too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHint)
	}
	v := math.Round(f * float64(mult))
	if v >= math.MaxInt64 { // float64(MaxInt64) is 2^63, which does not fit
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(v), nil
}

// ParseRate parses a transfer rate such as "550MB/s", "2.2GB/s",
// "1.25 GB/s", "100MiB/s", "10Gbit/s" or "10Gbps" and returns it in bytes per
// second. Byte units are as for [ParseBytes]; bit rates must spell out
// "bit" (or use "bps") and are divided by 8. The "/s" may be omitted and a
// plain number is bytes per second.
func ParseRate(s string) (float64, error) {
	num, unit, ok := splitNumber(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("invalid rate %q: %s", s, rateHint)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q: %s", s, rateHint)
	}
	u := strings.ToLower(unit)
	if m, ok := bpsUnits[u]; ok {
		return f * m / 8, nil
	}
	for _, suffix := range []string{"/s", "/sec"} {
		if rest, found := strings.CutSuffix(u, suffix); found {
			u = strings.TrimSpace(rest)
			break
		}
	}
	if m, ok := byteUnits[u]; ok {
		return f * float64(m), nil
	}
	if m, ok := bitUnits[u]; ok {
		return f * m / 8, nil
	}
	return 0, fmt.Errorf("invalid rate %q: %s", s, rateHint)
}

// FormatBytes formats n in decimal units with three significant digits:
// "0 B", "999 B", "1.50 kB", "12.3 MB", "2.00 GB", "1.23 TB".
func FormatBytes(n int64) string {
	if n < 0 {
		if n == math.MinInt64 {
			return "-" + formatPositive(-float64(n))
		}
		return "-" + FormatBytes(-n)
	}
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return formatPositive(float64(n))
}

var decimalUnits = []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}

// formatPositive formats v >= 1000 bytes.
func formatPositive(v float64) string {
	v /= 1000
	for i := 1; ; i++ {
		if s, ok := threeDigits(v); ok || i == len(decimalUnits)-1 {
			return s + " " + decimalUnits[i]
		}
		v /= 1000
	}
}

// threeDigits formats v (>= 1) with three significant digits. ok is false
// when rounding reaches 1000, so the caller should use the next unit.
func threeDigits(v float64) (string, bool) {
	if r := math.Round(v*100) / 100; r < 10 {
		return strconv.FormatFloat(r, 'f', 2, 64), true
	}
	if r := math.Round(v*10) / 10; r < 100 {
		return strconv.FormatFloat(r, 'f', 1, 64), true
	}
	r := math.Round(v)
	return strconv.FormatFloat(r, 'f', 0, 64), r < 1000
}

// FormatRate formats a rate in bytes per second: rates of at least
// 0.1 GB/s as GB/s with three decimals ("0.550 GB/s", "2.200 GB/s"), slower
// ones as MB/s with one decimal ("45.3 MB/s"), and a rate that moves but
// would show as "0.0 MB/s" as kB/s with one decimal ("0.4 kB/s", "49.9
// kB/s"). Zero is "0.0 MB/s".
func FormatRate(bytesPerSec float64) string {
	a := math.Abs(bytesPerSec)
	switch {
	case a >= 0.1*float64(GB):
		return strconv.FormatFloat(bytesPerSec/float64(GB), 'f', 3, 64) + " GB/s"
	case a > 0 && a < 0.05*float64(MB):
		return strconv.FormatFloat(bytesPerSec/float64(KB), 'f', 1, 64) + " kB/s"
	}
	return strconv.FormatFloat(bytesPerSec/float64(MB), 'f', 1, 64) + " MB/s"
}

// TBPerHour returns the throughput of moving bytes in d, in decimal
// terabytes per hour (10^12 bytes per hour). A zero or negative duration
// gives 0.
func TBPerHour(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / float64(TB) / d.Hours()
}

// FormatTBPerHour formats a throughput in TB/hour with three decimals, as
// in "1.980 TB/hour".
func FormatTBPerHour(v float64) string {
	return strconv.FormatFloat(v, 'f', 3, 64) + " TB/hour"
}

// NothingCopied is what a TB/hour of bytes copied reads where no byte
// was copied (bytes_copied 0: e.g. a card whose files were all in the
// cloud folder already, read and hashed, nothing sent): the figure,
// bytes copied over the time, has nothing to tell. Every front end and
// report says it in these words.
const NothingCopied = "nothing copied"

// FormatCopiedTBPerHour is the TB/hour v of bytes copied as people read
// it: NothingCopied when no byte was, "- TB/hour" when no time was
// recorded, else FormatTBPerHour(v).
func FormatCopiedTBPerHour(bytes int64, v float64) string {
	switch {
	case bytes <= 0:
		return NothingCopied
	case v <= 0:
		return "- TB/hour"
	}
	return FormatTBPerHour(v)
}

// FormatDuration formats d, rounded to the nearest second, for ETAs and
// elapsed times: "1h02m03s", "4m05s", "12s", "0s". Negative durations get a
// leading "-".
func FormatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign = "-"
		d = -max(d, -math.MaxInt64) // avoid overflowing on MinInt64
	}
	secs := int64(d.Round(time.Second) / time.Second)
	if secs == 0 {
		return "0s"
	}
	h, m, s := secs/3600, secs/60%60, secs%60
	switch {
	case h > 0:
		return fmt.Sprintf("%s%dh%02dm%02ds", sign, h, m, s)
	case m > 0:
		return fmt.Sprintf("%s%dm%02ds", sign, m, s)
	default:
		return fmt.Sprintf("%s%ds", sign, s)
	}
}
