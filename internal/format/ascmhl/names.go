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

// ParseDisplayName undoes DisplayName: each %XX becomes the byte XX. It
// returns false when s holds a "%" not followed by two hex digits (then s
// is no DisplayName of an unsafe name).
func ParseDisplayName(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// MaxPathBytes is the longest path a history records: Verify's index
// refuses longer ones.
const MaxPathBytes = 0xffff

// CanCarry returns nil when a history can record the file or folder at rel
// (a slash path relative to the scope, exactly as on disk) and read it back
// as that same entry, else an error naming rel and why not. It is meant
// for the engine to ask of every name on a card before it copies
// anything, so that a card whose history could never be written is
// refused at the start, never after copying.
//
// Carried: any name the operating system gives, whatever its characters
// (NFC or NFD, emoji, spaces anywhere, a leading dash, "\", ":", "*",
// "?", "<", ">", "|", quotes, tab, LF, CR: written as they are, escaped by
// XML where needed; a name that is not UTF-8 or holds another control
// character by its readable form and its exact bytes, see the package
// doc). Not carried: an empty, absolute or ".."-holding path, a NUL, a
// path of more than MaxPathBytes bytes, and where "\" separates folders
// (Windows) a name holding one.
func CanCarry(rel string) error {
	switch {
	case len(rel) > MaxPathBytes:
		return fmt.Errorf("%q...: a path of %d bytes is longer than an ASC MHL history of dit's can hold (%d)", CutName(rel, 64), len(rel), MaxPathBytes)
	case !ValidName(rel) || rel == ".":
		return fmt.Errorf("%q: not a relative path an ASC MHL history can record (empty, absolute, a \".\" or \"..\" element, a NUL, or a \"\\\" where it separates folders)", rel)
	}
	return nil
}
