package mountplace

import (
	"os"
	"strconv"
	"strings"
)

// mounts reads /proc/self/mountinfo: the mount point is field 5, the
// source the second field after the " - " separator; both escape space,
// tab, newline and backslash in octal (\040).
func mounts() []mount {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []mount
	for _, l := range strings.Split(string(b), "\n") {
		before, after, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(before), strings.Fields(after)
		if len(f) < 5 || len(g) < 2 {
			continue
		}
		out = append(out, mount{source: unescape(g[1]), dir: unescape(f[4])})
	}
	return out
}

// unescape undoes the mount table's octal escapes.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
