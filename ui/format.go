package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/units"
)

// Figures people read on set, all decimal (units package): bytes, rates,
// durations.

// rateText formats a rate for a label; 0 or less reads as a dash.
func rateText(r float64) string {
	if r <= 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	return units.FormatRate(r)
}

// etaText formats a number of seconds left; unknown (0 or less) is a dash.
func etaText(seconds float64) string {
	if seconds <= 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return "-"
	}
	return units.FormatDuration(time.Duration(seconds * float64(time.Second)))
}

// gbps formats a rate as decimal GB/s with the given number of decimals
// (chart axes).
func gbps(r float64, decimals int) string {
	return fmt.Sprintf("%.*f GB/s", decimals, r/1e9)
}

// niceStep returns a round step (1, 2 or 5 times a power of ten) so that
// about n steps cover top, and the number of decimals its labels need in
// GB/s.
func niceStep(top float64, n int) (step float64, decimals int) {
	if top <= 0 || math.IsNaN(top) || math.IsInf(top, 0) {
		return 0.1e9, 1
	}
	raw := top / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals = max(int(-math.Floor(math.Log10(step/1e9)+1e-9)), 0)
	return step, decimals
}

// pct formats a fraction as a whole percentage, never showing 100% before
// the work is complete.
func pct(done, total int64) string {
	if total <= 0 {
		return "0%"
	}
	if done >= total {
		return "100%"
	}
	return fmt.Sprintf("%d%%", min(int(float64(done)*100/float64(total)), 99))
}

// firstLine cuts s at its first line break (error messages in rows).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// plural returns "1 file" or "3 files".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
