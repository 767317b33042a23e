package ascmhl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// isXMLChar reports whether XML 1.0 can carry r (as itself or as a
// character reference): tab, LF, CR and U+0020 upward, minus the
// surrogates and U+FFFE/U+FFFF.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// XMLSafe reports whether s can be written in an XML document and read
// back byte for byte: valid UTF-8 made only of XML characters. Tab, LF and
// CR qualify (they are written as character references); other control
// characters and bytes that are not UTF-8 do not.
func XMLSafe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !isXMLChar(r) {
			return false
		}
		i += n
	}
	return true
}

// DisplayName returns s as readable XML-safe text: each byte that is not
// valid UTF-8, and each character XML cannot carry, becomes %XX (its bytes
// in hex), and so does "%" itself. An XML-safe s is returned unchanged. The
// exact bytes of an unsafe name are kept next to it (see the package doc),
// so this form only has to be readable and, within a folder, distinct.
func DisplayName(s string) string {
	if XMLSafe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "%%%02X", s[i])
		case !isXMLChar(r) || r == '%':
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
