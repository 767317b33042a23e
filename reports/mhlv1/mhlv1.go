// Package mhlv1 writes and reads legacy MHL v1.1 media hash lists, for
// pipelines that predate ASC MHL.
//
// # On disk
//
// One file at the root of the folder it covers (a card's folder on a
// destination), named <folder>_<YYYY-MM-DD>_<HHMMSS>.mhl after its creation
// time in UTC. It is UTF-8 XML, valid against MediaHashList_v1_1.xsd.
// The schema's <size> is a positiveInteger, so an empty file cannot be
// listed: dit leaves empty files out and names them in an XML comment
// after <creatorinfo> (the ASC MHL history lists them). Other tools write
// <size>0</size>, which the schema rejects (ocopy's --legacy-mhl, as of
// 0.9.2); a list of empty files only is not written:
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<hashlist version="1.1">
//	  <creatorinfo>
//	    <username>dit</username> <hostname>cart-1</hostname>
//	    <tool>dit 1.0.0</tool>
//	    <startdate>2026-11-20T09:30:00Z</startdate>
//	    <finishdate>2026-11-20T10:02:13Z</finishdate>
//	  </creatorinfo>
//	  <hash>
//	    <file>Clips/A001C001.mov</file> <size>1234</size>
//	    <lastmodificationdate>2026-11-20T08:12:00Z</lastmodificationdate>
//	    <md5>...</md5> <sha1>...</sha1> <xxhash64be>...</xxhash64be>
//	    <hashdate>2026-11-20T10:01:55Z</hashdate>
//	  </hash>
//	</hashlist>
//
// Only md5, sha1 and xxh64 exist in MHL v1.1; xxh64 is written as
// <xxhash64be> (the same text as ASC MHL's xxh64: 16 hex digits of the
// big-endian value). The deprecated little-endian <xxhash64> and the
// decimal XXH32 <xxhash> are never written. Dates are UTC with "Z". A name
// that XML cannot carry (not UTF-8, or a control character other than tab,
// LF, CR) is written in the readable %XX form of ascmhl.DisplayName: MHL
// v1.1 has no place for its exact bytes.
//
// # Reading
//
// [Read] streams a list (any MHL v1.x: dit's, o/COPY's --legacy-mhl, other
// tools'), and [Verify] checks a folder against every list at its top
// ([Find]): each listed file must be there with its size and every
// hash the list gives: md5 and sha1 (hex, either case), xxhash64be (the
// ASC MHL xxh64 text), the deprecated little-endian xxhash64 (either byte
// order is accepted), the decimal XXH32 xxhash, and null (size only);
// other elements are warnings. "\" in a path is taken as a separator; a
// path that leaves the folder is refused. The empty files dit names in its
// comment must be there and empty. Files no list names are a warning (a
// list names what was copied). Only the listed names are held, so a list
// of any size verifies in memory proportional to its file count.
// `dit mhl verify` uses it for a folder with no ASC MHL history.
package mhlv1

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/reports/ascmhl"
)

// Algos are the algorithms MHL v1.1 can record, with their element names.
var Algos = map[hashing.Algo]string{hashing.MD5: "md5", hashing.SHA1: "sha1", hashing.XXH64: "xxhash64be"}

// Supported reports whether one of algos can be written to MHL v1.1.
func Supported(algos []hashing.Algo) bool {
	for _, a := range algos {
		if _, ok := Algos[a]; ok {
			return true
		}
	}
	return false
}

// File is one file of the list.
type File struct {
	Path     string
	Size     int64
	Mtime    time.Time
	Sums     hashing.Sums
	HashDate time.Time
}

// List is a whole hash list.
type List struct {
	Username, Hostname, Tool string
	Start, Finish            time.Time
	Files                    []File
}

// FileName is the name of the list covering folder, created at t.
func FileName(folder string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(folder); {
		r, n := utf8.DecodeRuneInString(folder[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r == '/', r == '\\', !ascmhl.XMLSafe(string(r)):
			b.WriteByte('_')
		default:
			b.WriteString(folder[i : i+n])
		}
		i += n
	}
	return fmt.Sprintf("%s_%s.mhl", b.String(), t.UTC().Format("2006-01-02_150405"))
}

func v1Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Marshal renders the list. A list needs at least one file, and each file
// at least one hash MHL v1.1 knows.
func (l *List) Marshal() ([]byte, error) {
	var empty []string
	for _, f := range l.Files {
		if f.Size == 0 {
			empty = append(empty, strings.ReplaceAll(ascmhl.DisplayName(f.Path), "--", "-%2D"))
		}
	}
	if len(l.Files) == len(empty) {
		return nil, errors.New("mhlv1: a hash list needs at least one file that is not empty")
	}
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	leaf := func(indent, name, text string) {
		fmt.Fprintf(&b, "%s<%s>%s</%s>\n", indent, name, esc(text), name)
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<hashlist version="1.1">` + "\n")
	b.WriteString("  <creatorinfo>\n")
	leaf("    ", "username", l.Username)
	leaf("    ", "hostname", l.Hostname)
	leaf("    ", "tool", l.Tool)
	leaf("    ", "startdate", v1Time(l.Start))
	leaf("    ", "finishdate", v1Time(l.Finish))
	b.WriteString("  </creatorinfo>\n")
	if len(empty) > 0 {
		fmt.Fprintf(&b, "  <!-- %d empty file(s) not listed (MHL v1.1 sizes are positive): %s -->\n", len(empty), strings.Join(empty, ", "))
	}
	for _, f := range l.Files {
		if f.Size == 0 {
			continue
		}
		b.WriteString("  <hash>\n")
		leaf("    ", "file", ascmhl.DisplayName(f.Path))
		leaf("    ", "size", strconv.FormatInt(f.Size, 10))
		leaf("    ", "lastmodificationdate", v1Time(f.Mtime))
		n := 0
		for _, a := range []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64} {
			if v := f.Sums.Get(a); v != "" {
				leaf("    ", Algos[a], v)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("mhlv1: %q has no md5, sha1 or xxh64: MHL v1.1 cannot record it", f.Path)
		}
		leaf("    ", "hashdate", v1Time(f.HashDate))
		b.WriteString("  </hash>\n")
	}
	b.WriteString("</hashlist>\n")
	return b.Bytes(), nil
}
