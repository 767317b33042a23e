package ascmhl

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// Namespaces of the manifest, the chain file and dit's own metadata.
const (
	Namespace      = "urn:ASC:MHL:v2.0"
	ChainNamespace = "urn:ASC:MHL:DIRECTORY:v2.0"
	DitNamespace   = "urn:dit-org:dit:mhl:v1"
)

// Folder and file names of a history.
const (
	HistoryDir = "ascmhl"
	ChainFile  = "ascmhl_chain.xml"
)

// Action qualifies a file hash.
type Action string

// Actions, as the specification defines them.
const (
	Original Action = "original" // the first hash of the file in the history
	Verified Action = "verified" // computed from this copy and equal to an earlier record
	Failed   Action = "failed"   // computed from this copy and different from an earlier record
)

// Processes, as the specification defines them.
const (
	ProcessInPlace  = "in-place"
	ProcessTransfer = "transfer"
	ProcessFlatten  = "flatten"
)

// Hash is one hash value of a file.
type Hash struct {
	Algo   hashing.Algo
	Value  string // ASC MHL text form
	Action Action
	Date   time.Time // hashdate; zero: not written
}

// File is the record of one file.
type File struct {
	Path         string // relative slash path, exact bytes
	Size         int64  // -1: not recorded
	Mtime        time.Time
	Hashes       []Hash // at most one per algorithm
	PreviousPath string // the file's path before a rename (ascmhl create -dr), if it was renamed
}

// Hash returns the file's hash of algorithm a, if recorded.
func (f File) Hash(a hashing.Algo) (Hash, bool) {
	for _, h := range f.Hashes {
		if h.Algo == a {
			return h, true
		}
	}
	return Hash{}, false
}

// DirHash is the content and structure hash of a folder in one algorithm.
type DirHash struct {
	Algo      hashing.Algo
	Content   string
	Structure string
}

// Dir is the record of one folder (the root's is Manifest.Root).
type Dir struct {
	Path         string
	Mtime        time.Time
	Hashes       []DirHash
	PreviousPath string // the folder's path before a rename, if it was renamed
}

// Reference points to the manifest of a nested history.
type Reference struct {
	Path string
	C4   string
}

// Author is a person named in the creator info: the one who initiated or
// controlled the process (the specification's AuthorType: the name as
// text, email, phone and role as attributes).
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
	Role  string `json:"role,omitempty"`
}

// IsZero reports whether no field is set.
func (a Author) IsZero() bool { return a == Author{} }

// emailPattern is the schema's EmailAddressAttributeType.
var emailPattern = regexp.MustCompile(`^[^@]+@[^.]+\..+$`)

// Check refuses what would make the manifest invalid: an email the schema
// does not accept (it wants name@domain.tld) or text XML cannot carry.
func (a Author) Check() error {
	if a.Email != "" && !emailPattern.MatchString(a.Email) {
		return fmt.Errorf("author email %q is not an address the ASC MHL schema accepts (name@domain.tld)", a.Email)
	}
	for _, s := range []string{a.Name, a.Email, a.Phone, a.Role} {
		if !XMLSafe(s) {
			return fmt.Errorf("author %q: holds characters an XML document cannot carry", s)
		}
	}
	return nil
}

// Manifest is one generation of a history: one .mhl file.
type Manifest struct {
	Created     time.Time
	Host        string
	Tool        string
	ToolVersion string
	Authors     []Author
	Location    string
	Comment     string
	Process     string
	Root        []DirHash
	// EmptyRootHash writes an empty <roothash> when Root is empty: a
	// generation without directory hashes (dit mhl create
	// --no-directory-hashes). The schema allows it, and the reference
	// tool's verify -dh needs the element in every generation (it fails on
	// a manifest without one, such as its own create -n writes).
	EmptyRootHash bool
	Ignore        []string
	Files         []File
	Dirs          []Dir
	References    []Reference
}

// xmlTime renders a time for xs:dateTime: UTC, with fractional seconds
// only when there are some.
func xmlTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999999999Z07:00") }

// xmlWriter writes indented XML with explicit escaping.
type xmlWriter struct {
	b     bytes.Buffer
	depth int
}

func (w *xmlWriter) indent() { w.b.WriteString(strings.Repeat("  ", w.depth)) }

func (w *xmlWriter) escape(s string) {
	xml.EscapeText(&w.b, []byte(s))
}

// open writes <name attrs...>; attrs are name, value pairs.
func (w *xmlWriter) open(name string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteString(">\n")
	w.depth++
}

func (w *xmlWriter) tag(name string, attrs []string) {
	w.b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		w.b.WriteString(" " + attrs[i] + `="`)
		w.escape(attrs[i+1])
		w.b.WriteString(`"`)
	}
}

func (w *xmlWriter) close(name string) {
	w.depth--
	w.indent()
	w.b.WriteString("</" + name + ">\n")
}

// leaf writes <name attrs...>text</name>.
func (w *xmlWriter) leaf(name, text string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteString(">")
	w.escape(text)
	w.b.WriteString("</" + name + ">\n")
}

// Marshal renders the manifest as an ASC MHL v2.0 document. Element order
// and escaping follow the schema; hashes are in the schema's order (c4,
// md5, sha1, xxh128, xxh3, xxh64); algorithms ASC MHL does not define are
// left out. Names that XML cannot carry exactly are written readable (see
// [DisplayName]) with their bytes in a metadata element.
func (m *Manifest) Marshal() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(m.sizeHint())
	if err := m.marshalTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sizeHint is a little more than the size of the manifest as Marshal
// writes it, from the sizes of its entries: the buffer is allocated once,
// not doubled as it grows (a card of 100,000 frames: ~25 MB, not 48 MB
// of buffers at the peak).
func (m *Manifest) sizeHint() int {
	n := 4096 + len(m.Comment) + 64*len(m.Ignore)
	for i := range m.Files {
		n += 120 + len(m.Files[i].Path) + 110*len(m.Files[i].Hashes)
	}
	for i := range m.Dirs {
		n += 160 + len(m.Dirs[i].Path) + 120*len(m.Dirs[i].Hashes)
	}
	return n
}

type entry struct {
	key  string
	file *File
	dir  *Dir
}

// entries orders files and folders as the reference tool does: each folder
// after everything in it, names in byte order.
func (m *Manifest) entries() []entry {
	var es []entry
	for i := range m.Files {
		es = append(es, entry{key: m.Files[i].Path, file: &m.Files[i]})
	}
	for i := range m.Dirs {
		es = append(es, entry{key: m.Dirs[i].Path + "/\xff", dir: &m.Dirs[i]})
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].key < es[j].key })
	return es
}

func writePath(w *xmlWriter, p string, attrs ...string) {
	w.leaf("path", DisplayName(p), attrs...)
}

// writeRawPath records the exact bytes of a name XML cannot carry.
func writeRawPath(w *xmlWriter, p string) {
	if XMLSafe(p) {
		return
	}
	w.open("metadata")
	w.indent()
	w.b.WriteString(`<dit:pathbytes xmlns:dit="` + DitNamespace + `" encoding="base64">`)
	w.b.WriteString(base64.StdEncoding.EncodeToString([]byte(p)))
	w.b.WriteString("</dit:pathbytes>\n")
	w.close("metadata")
}

func writeFile(w *xmlWriter, f *File) {
	w.open("hash")
	size := ""
	if f.Size >= 0 {
		size = strconv.FormatInt(f.Size, 10)
	}
	mt := ""
	if !f.Mtime.IsZero() {
		mt = xmlTime(f.Mtime.Truncate(time.Second))
	}
	writePath(w, f.Path, "size", size, "lastmodificationdate", mt)
	for _, a := range hashing.All {
		if h, ok := f.Hash(a); ok && a.InASCMHL() {
			date := ""
			if !h.Date.IsZero() {
				date = xmlTime(h.Date)
			}
			w.leaf(a.String(), h.Value, "action", string(h.Action), "hashdate", date)
		}
	}
	if f.PreviousPath != "" {
		w.leaf("previousPath", DisplayName(f.PreviousPath))
	}
	writeRawPath(w, f.Path)
	w.close("hash")
}

func writeDirHashes(w *xmlWriter, hs []DirHash) {
	for _, part := range []string{"content", "structure"} {
		if len(hs) == 0 { // a folder listed without hashes (no directory hashes)
			w.indent()
			w.b.WriteString("<" + part + "/>\n")
			continue
		}
		w.open(part)
		for _, a := range hashing.All {
			for _, h := range hs {
				if h.Algo == a && a.InASCMHL() {
					v := h.Content
					if part == "structure" {
						v = h.Structure
					}
					w.leaf(a.String(), v)
				}
			}
		}
		w.close(part)
	}
}

func writeDir(w *xmlWriter, d *Dir) {
	w.open("directoryhash")
	mt := ""
	if !d.Mtime.IsZero() {
		mt = xmlTime(d.Mtime.Truncate(time.Second))
	}
	writePath(w, d.Path, "lastmodificationdate", mt)
	writeDirHashes(w, d.Hashes)
	if d.PreviousPath != "" {
		w.leaf("previousPath", DisplayName(d.PreviousPath))
	}
	writeRawPath(w, d.Path)
	w.close("directoryhash")
}

// check refuses what would make an invalid manifest.
func (m *Manifest) check() error {
	switch m.Process {
	case ProcessInPlace, ProcessTransfer, ProcessFlatten:
	default:
		return fmt.Errorf("ascmhl: invalid process %q", m.Process)
	}
	if m.Tool == "" || m.Created.IsZero() {
		return fmt.Errorf("ascmhl: a manifest needs a tool name and a creation date")
	}
	for _, a := range m.Authors {
		if err := a.Check(); err != nil {
			return fmt.Errorf("ascmhl: %w", err)
		}
	}
	if !XMLSafe(m.Location) || !XMLSafe(m.Comment) {
		return fmt.Errorf("ascmhl: the location or comment holds characters an XML document cannot carry")
	}
	seen := map[string]bool{}
	for i := range m.Files {
		f := &m.Files[i]
		if err := checkFile(f); err != nil {
			return err
		}
		if seen[f.Path] {
			return fmt.Errorf("ascmhl: %q is recorded twice", f.Path)
		}
		seen[f.Path] = true
	}
	for _, d := range m.Dirs {
		if !ValidName(d.Path) || d.Path == "." || seen[d.Path] {
			return fmt.Errorf("ascmhl: invalid or repeated folder path %q", d.Path)
		}
		seen[d.Path] = true
	}
	return nil
}

// checkFile refuses a file record that would make an invalid manifest.
func checkFile(f *File) error {
	if !ValidName(f.Path) || f.Path == "." {
		return fmt.Errorf("ascmhl: invalid path %q", f.Path)
	}
	n := 0
	for _, h := range f.Hashes {
		if !h.Algo.InASCMHL() {
			continue
		}
		n++
		switch h.Action {
		case Original, Verified, Failed:
		default:
			return fmt.Errorf("ascmhl: %q: %s hash has no valid action (%q)", f.Path, h.Algo, h.Action)
		}
		if err := CheckValue(h.Algo, h.Value); err != nil {
			return fmt.Errorf("ascmhl: %q: %w", f.Path, err)
		}
	}
	if n == 0 {
		return fmt.Errorf("ascmhl: %q has no ASC MHL hash", f.Path)
	}
	return nil
}

// CheckValue checks the text form of a hash value of algorithm a.
func CheckValue(a hashing.Algo, v string) error {
	want := map[hashing.Algo]int{hashing.MD5: 32, hashing.SHA1: 40, hashing.XXH64: 16, hashing.XXH3: 16, hashing.XXH128: 32}
	if a == hashing.C4 {
		if _, err := hashing.DecodeC4(v); err != nil {
			return err
		}
		return nil
	}
	n, ok := want[a]
	if !ok {
		return fmt.Errorf("%s is not an ASC MHL hash", a)
	}
	if len(v) != n || strings.Trim(v, "0123456789abcdef") != "" {
		return fmt.Errorf("invalid %s value %q: want %d lowercase hex digits", a, v, n)
	}
	return nil
}

// ChainEntry is one generation in the chain file.
type ChainEntry struct {
	Seq  int
	Path string // file name in the ascmhl folder
	C4   string // of the manifest's exact bytes
}

// MarshalChain renders the chain file.
func MarshalChain(entries []ChainEntry) []byte {
	w := &xmlWriter{}
	w.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.open("ascmhldirectory", "xmlns", ChainNamespace)
	for _, e := range entries {
		w.open("hashlist", "sequencenr", strconv.Itoa(e.Seq))
		w.leaf("path", e.Path)
		w.leaf("c4", e.C4)
		w.close("hashlist")
	}
	w.close("ascmhldirectory")
	return w.b.Bytes()
}

// C4 returns the C4 id of data.
func C4(data []byte) string {
	h := hashing.C4.New()
	h.Write(data)
	return hashing.EncodeC4(h.Sum(nil))
}
