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

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
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

// FileName is the name of the list covering folder, created at t: the
// folder's name (characters a file name or XML cannot carry replaced by
// "_", cut to ascmhl.MaxFolderPart bytes), the date and the time.
func FileName(folder string, t time.Time) string {
	var b strings.Builder
	folder = ascmhl.CutName(folder, ascmhl.MaxFolderPart)
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
