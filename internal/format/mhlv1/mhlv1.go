package mhlv1

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
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
	var b bytes.Buffer
	w := NewWriter(&b, l)
	for _, f := range l.Files {
		if err := w.Add(f); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Writer writes a list as its files come, holding none of them: what
// Marshal writes, with the files given one at a time (Add) and the
// list's end by Close. The empty files it leaves out (MHL v1.1 sizes are
// positive) are named in a comment before the list's end: their names
// are what it holds.
type Writer struct {
	w     *bufio.Writer
	empty []string
	n     int // files listed
	err   error
}

// NewWriter starts l's list on w: its header (l's Files are not
// written: Add them).
func NewWriter(w io.Writer, l *List) *Writer {
	lw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	lw.put(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<hashlist version="1.1">` + "\n")
	lw.put("  <creatorinfo>\n")
	lw.leaf("username", l.Username)
	lw.leaf("hostname", l.Hostname)
	lw.leaf("tool", l.Tool)
	lw.leaf("startdate", v1Time(l.Start))
	lw.leaf("finishdate", v1Time(l.Finish))
	lw.put("  </creatorinfo>\n")
	return lw
}

func (lw *Writer) put(s string) {
	if lw.err == nil {
		_, lw.err = lw.w.WriteString(s)
	}
}

func (lw *Writer) leaf(name, text string) {
	lw.put("    <" + name + ">")
	if lw.err == nil {
		lw.err = xml.EscapeText(lw.w, []byte(text))
	}
	lw.put("</" + name + ">\n")
}

// Add lists f; an empty file is left out, named at the list's end. A
// file without a hash MHL v1.1 knows is an error naming it.
func (lw *Writer) Add(f File) error {
	if f.Size == 0 {
		lw.empty = append(lw.empty, strings.ReplaceAll(ascmhl.DisplayName(f.Path), "--", "-%2D"))
		return lw.err
	}
	n := 0
	for _, a := range []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64} {
		if f.Sums.Get(a) != "" {
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("mhlv1: %q has no md5, sha1 or xxh64: MHL v1.1 cannot record it", f.Path)
	}
	lw.put("  <hash>\n")
	lw.leaf("file", ascmhl.DisplayName(f.Path))
	lw.leaf("size", strconv.FormatInt(f.Size, 10))
	lw.leaf("lastmodificationdate", v1Time(f.Mtime))
	for _, a := range []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64} {
		if v := f.Sums.Get(a); v != "" {
			lw.leaf(Algos[a], v)
		}
	}
	lw.leaf("hashdate", v1Time(f.HashDate))
	lw.put("  </hash>\n")
	lw.n++
	return lw.err
}

// Files is how many files were added (the empty ones left out
// included).
func (lw *Writer) Files() int { return lw.n + len(lw.empty) }

// Close ends the list (naming the empty files left out) and flushes it.
// A list with no file that is not empty is an error: MHL v1.1 cannot
// say it.
func (lw *Writer) Close() error {
	if lw.n == 0 {
		return errors.New("mhlv1: a hash list needs at least one file that is not empty")
	}
	if len(lw.empty) > 0 {
		lw.put(fmt.Sprintf("  <!-- %d%sMHL v1.1 sizes are positive): %s -->\n", len(lw.empty), emptyComment, strings.Join(lw.empty, ", ")))
	}
	lw.put("</hashlist>\n")
	if lw.err == nil {
		lw.err = lw.w.Flush()
	}
	return lw.err
}
