package ascmhl

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// maxWarnings is how many warnings a history keeps word for word; the
// rest are counted (a manifest of a million files each with a hash format
// ASC MHL does not define would otherwise hold a million warnings).
const maxWarnings = 100

// warnList collects warnings up to maxWarnings and counts the rest.
type warnList struct {
	list []string
	more int
}

func (w *warnList) add(s string) {
	if len(w.list) < maxWarnings {
		w.list = append(w.list, s)
		return
	}
	w.more++
}

func (w *warnList) strings() []string {
	if w.more == 0 {
		return w.list
	}
	return append(w.list, fmt.Sprintf("... and %d more warning(s)", w.more))
}

// xmlError marks an error of the XML decoder (the document is not
// well-formed), as opposed to one of the manifest's content.
type xmlError struct{ err error }

func (e xmlError) Error() string { return "not valid XML: " + e.err.Error() }
func (e xmlError) Unwrap() error { return e.err }

// xreader walks a document token by token: nothing but the element being
// read is held.
type xreader struct {
	d   *xml.Decoder
	buf []byte
}

func newXReader(r io.Reader) *xreader {
	if _, ok := r.(io.ByteReader); !ok {
		r = bufio.NewReaderSize(r, 256<<10)
	}
	return &xreader{d: xml.NewDecoder(r)}
}

func (x *xreader) token() (xml.Token, error) {
	t, err := x.d.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, xmlError{err}
	}
	return t, nil
}

// root returns the document's root element.
func (x *xreader) root() (xml.StartElement, error) {
	for {
		t, err := x.d.Token()
		if err == io.EOF {
			return xml.StartElement{}, xmlError{errors.New("no root element")}
		}
		if err != nil {
			return xml.StartElement{}, xmlError{err}
		}
		if se, ok := t.(xml.StartElement); ok {
			return se, nil
		}
	}
}

// skip consumes the element just started.
func (x *xreader) skip() error {
	if err := x.d.Skip(); err != nil {
		return xmlError{err}
	}
	return nil
}

// text returns the character data of the element just started, up to its
// end; child elements are skipped.
func (x *xreader) text() (string, error) {
	x.buf = x.buf[:0]
	for {
		t, err := x.token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			x.buf = append(x.buf, t...)
		case xml.StartElement:
			if err := x.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			return string(x.buf), nil
		}
	}
}

// children calls f for each child element of the element just started,
// up to its end. f consumes the child (text, children or skip).
func (x *xreader) children(f func(se xml.StartElement) error) error {
	for {
		t, err := x.token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// rawValue is a hash element as read.
type rawValue struct {
	name, action, date, text string
}

// rawEntry is a <hash> or <directoryhash> as read; it is reused from one
// entry to the next.
type rawEntry struct {
	hasPath, hasContent, hasStructure bool
	path, size, lastMod               string
	previousPath                      string
	values, content, structure        []rawValue
	pathBytes, pathBytesEnc           string
	hasPathBytes                      bool
}

func (e *rawEntry) reset() {
	*e = rawEntry{values: e.values[:0], content: e.content[:0], structure: e.structure[:0]}
}

// manifestParser reads one manifest token by token and hands each file
// and folder record to its sinks as soon as it is read.
type manifestParser struct {
	x      *xreader
	m      *Manifest
	warns  *warnList
	onFile func(*File) error
	onDir  func(*Dir) error
	e      rawEntry
}

// ParseManifest reads a manifest. It returns an error when the document is
// not a usable ASC MHL v2.0 manifest (not XML, wrong root, namespace or
// version, a missing required element, an invalid path, action or hash
// value, a path recorded twice) and warnings for what it skips: hash
// formats ASC MHL does not define, and hashes without an action.
func ParseManifest(data []byte) (*Manifest, []string, error) {
	return ReadManifest(bytes.NewReader(data))
}

// ReadManifest is ParseManifest reading from r, token by token: besides
// the Manifest it returns, it holds no more than one record at a time.
func ReadManifest(r io.Reader) (*Manifest, []string, error) {
	seen := map[string]bool{}
	var files []File
	var dirs []Dir
	warns := &warnList{}
	dup := func(p string) error {
		if seen[p] {
			return fmt.Errorf("path %q is recorded twice", p)
		}
		seen[p] = true
		return nil
	}
	m, err := parseManifest(r, warns,
		func(f *File) error {
			if err := dup(f.Path); err != nil {
				return err
			}
			files = append(files, *f)
			return nil
		},
		func(d *Dir) error {
			if err := dup(d.Path); err != nil {
				return err
			}
			dirs = append(dirs, *d)
			return nil
		})
	if err != nil {
		return nil, warns.strings(), err
	}
	m.Files, m.Dirs = files, dirs
	return m, warns.strings(), nil
}

// parseManifest reads a manifest from r. Each file and folder record goes
// to onFile or onDir as it is read (the pointer is valid during the call
// only); the Manifest returned has the rest (creator, process, root hash,
// ignore patterns, references), its Files and Dirs empty. A manifest that
// turns out invalid part way has had its earlier records handed on.
func parseManifest(r io.Reader, warns *warnList, onFile func(*File) error, onDir func(*Dir) error) (*Manifest, error) {
	p := &manifestParser{x: newXReader(r), m: &Manifest{}, warns: warns, onFile: onFile, onDir: onDir}
	root, err := p.x.root()
	if err != nil {
		return nil, err
	}
	if root.Name.Local != "hashlist" || root.Name.Space != Namespace {
		return nil, fmt.Errorf("not an ASC MHL manifest: root element {%s}%s, want {%s}hashlist", root.Name.Space, root.Name.Local, Namespace)
	}
	if v := attr(root, "version"); v != "2.0" {
		return nil, fmt.Errorf("hashlist version %q: this reader knows ASC MHL version 2.0", v)
	}
	var haveCreator, haveProcess bool
	err = p.x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "creatorinfo":
			if haveCreator {
				return fmt.Errorf("two <creatorinfo> elements")
			}
			haveCreator = true
			return p.creator()
		case "processinfo":
			if haveProcess {
				return fmt.Errorf("two <processinfo> elements")
			}
			haveProcess = true
			return p.process()
		case "hashes":
			if !haveCreator || !haveProcess {
				return fmt.Errorf("creatorinfo and processinfo are required (before <hashes>)")
			}
			return p.hashes()
		case "references":
			return p.references()
		default:
			return p.x.skip()
		}
	})
	if err != nil {
		return nil, err
	}
	if !haveCreator || !haveProcess {
		return nil, fmt.Errorf("creatorinfo and processinfo are required")
	}
	return p.m, nil
}

func (p *manifestParser) creator() error {
	m := p.m
	var created string
	err := p.x.children(func(se xml.StartElement) error {
		var err error
		switch se.Name.Local {
		case "creationdate":
			created, err = p.x.text()
		case "hostname":
			m.Host, err = p.x.text()
		case "tool":
			m.ToolVersion = attr(se, "version")
			m.Tool, err = p.x.text()
			m.Tool = strings.TrimSpace(m.Tool)
		case "author":
			a := Author{Email: attr(se, "email"), Phone: attr(se, "phone"), Role: attr(se, "role")}
			a.Name, err = p.x.text()
			m.Authors = append(m.Authors, a)
		case "location":
			m.Location, err = p.x.text()
		case "comment":
			m.Comment, err = p.x.text()
		default:
			err = p.x.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	if m.Created, err = parseTime(created); err != nil {
		return fmt.Errorf("creatorinfo/creationdate: %w", err)
	}
	if m.Host == "" || m.Tool == "" {
		return fmt.Errorf("creatorinfo needs a hostname and a tool")
	}
	return nil
}

func (p *manifestParser) process() error {
	m := p.m
	err := p.x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "process":
			s, err := p.x.text()
			m.Process = strings.TrimSpace(s)
			return err
		case "roothash":
			var content, structure []rawValue
			var hasC, hasS bool
			err := p.x.children(func(se xml.StartElement) error {
				switch se.Name.Local {
				case "content":
					hasC = true
					return p.values(&content)
				case "structure":
					hasS = true
					return p.values(&structure)
				}
				return p.x.skip()
			})
			if err != nil {
				return err
			}
			m.Root, err = p.dirHashes(content, structure, hasC && hasS, "roothash")
			return err
		case "ignore":
			return p.x.children(func(se xml.StartElement) error {
				if se.Name.Local != "pattern" {
					return p.x.skip()
				}
				s, err := p.x.text()
				m.Ignore = append(m.Ignore, s)
				return err
			})
		}
		return p.x.skip()
	})
	if err != nil {
		return err
	}
	switch m.Process {
	case ProcessInPlace, ProcessTransfer, ProcessFlatten:
	default:
		return fmt.Errorf("processinfo/process %q: want in-place, transfer or flatten", m.Process)
	}
	return nil
}

// values reads the hash elements inside the element just started.
func (p *manifestParser) values(out *[]rawValue) error {
	return p.x.children(func(se xml.StartElement) error {
		v := rawValue{name: se.Name.Local, action: attr(se, "action"), date: attr(se, "hashdate")}
		var err error
		v.text, err = p.x.text()
		*out = append(*out, v)
		return err
	})
}

func (p *manifestParser) references() error {
	return p.x.children(func(se xml.StartElement) error {
		if se.Name.Local != "hashlistreference" {
			return p.x.skip()
		}
		var r Reference
		err := p.x.children(func(se xml.StartElement) error {
			var err error
			switch se.Name.Local {
			case "path":
				r.Path, err = p.x.text()
			case "c4":
				r.C4, err = p.x.text()
				r.C4 = strings.TrimSpace(r.C4)
			default:
				err = p.x.skip()
			}
			return err
		})
		if err != nil {
			return err
		}
		if !ValidName(r.Path) || r.Path == "." {
			return fmt.Errorf("reference %q leaves the folder or is not a relative path: refused", r.Path)
		}
		p.m.References = append(p.m.References, r)
		return nil
	})
}

func (p *manifestParser) hashes() error {
	n := 0
	err := p.x.children(func(se xml.StartElement) error {
		n++
		switch se.Name.Local {
		case "hash", "directoryhash":
			return p.entry(se.Name.Local)
		}
		p.warns.add(fmt.Sprintf("unknown element <%s> in <hashes> skipped", se.Name.Local))
		return p.x.skip()
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("an empty <hashes> element (the schema wants at least one entry)")
	}
	return err
}

// entry reads a <hash> or a <directoryhash> and hands it on.
func (p *manifestParser) entry(kind string) error {
	e := &p.e
	e.reset()
	err := p.x.children(func(se xml.StartElement) error {
		var err error
		switch se.Name.Local {
		case "path":
			e.hasPath, e.size, e.lastMod = true, attr(se, "size"), attr(se, "lastmodificationdate")
			e.path, err = p.x.text()
		case "previousPath":
			e.previousPath, err = p.x.text()
		case "content":
			if kind != "directoryhash" {
				return p.x.skip()
			}
			e.hasContent = true
			err = p.values(&e.content)
		case "structure":
			if kind != "directoryhash" {
				return p.x.skip()
			}
			e.hasStructure = true
			err = p.values(&e.structure)
		case "metadata":
			err = p.x.children(func(se xml.StartElement) error {
				if se.Name.Local != "pathbytes" || se.Name.Space != DitNamespace {
					return p.x.skip()
				}
				var err error
				e.hasPathBytes, e.pathBytesEnc = true, attr(se, "encoding")
				e.pathBytes, err = p.x.text()
				return err
			})
		default:
			v := rawValue{name: se.Name.Local, action: attr(se, "action"), date: attr(se, "hashdate")}
			v.text, err = p.x.text()
			e.values = append(e.values, v)
		}
		return err
	})
	if err != nil {
		return err
	}
	if !e.hasPath {
		return fmt.Errorf("a <%s> without a <path>", kind)
	}
	path := e.path
	if e.hasPathBytes {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(e.pathBytes))
		if err != nil || e.pathBytesEnc != "base64" {
			return fmt.Errorf("path %q: unreadable dit:pathbytes", path)
		}
		path = string(raw)
	}
	path = strings.TrimSuffix(path, "/")
	if !ValidName(path) || path == "." {
		return fmt.Errorf("path %q leaves the folder or is not a relative path (absolute, .., or empty element): refused", path)
	}
	prev := strings.TrimSuffix(e.previousPath, "/")
	if prev != "" && (!ValidName(prev) || prev == ".") {
		return fmt.Errorf("path %q: previousPath %q leaves the folder or is not a relative path: refused", path, e.previousPath)
	}
	var mt time.Time
	if e.lastMod != "" {
		var err error
		if mt, err = parseTime(e.lastMod); err != nil {
			return fmt.Errorf("path %q: lastmodificationdate: %w", path, err)
		}
	}
	if kind == "directoryhash" {
		d := Dir{Path: path, Mtime: mt, PreviousPath: prev}
		var err error
		if d.Hashes, err = p.dirHashes(e.content, e.structure, e.hasContent && e.hasStructure, path); err != nil {
			return err
		}
		return p.onDir(&d)
	}
	f := File{Path: path, Size: -1, Mtime: mt, PreviousPath: prev}
	if e.size != "" {
		var err error
		if f.Size, err = strconv.ParseInt(strings.TrimSpace(e.size), 10, 64); err != nil || f.Size < 0 {
			return fmt.Errorf("path %q: invalid size %q", path, e.size)
		}
	}
	for _, v := range e.values {
		a, known := ascAlgo(v.name)
		if !known {
			p.warns.add(fmt.Sprintf("%q: unknown hash format <%s> skipped", path, v.name))
			continue
		}
		h := Hash{Algo: a, Value: strings.TrimSpace(v.text), Action: Action(v.action)}
		switch h.Action {
		case Original, Verified, Failed:
		case "":
			p.warns.add(fmt.Sprintf("%q: %s hash without an action (taken as original)", path, a))
			h.Action = Original
		default:
			return fmt.Errorf("path %q: %s action %q: want original, verified or failed", path, a, v.action)
		}
		if err := CheckValue(a, h.Value); err != nil {
			return fmt.Errorf("path %q: %w", path, err)
		}
		if v.date != "" {
			var err error
			if h.Date, err = parseTime(v.date); err != nil {
				return fmt.Errorf("path %q: hashdate: %w", path, err)
			}
		}
		if _, dup := f.Hash(a); dup {
			return fmt.Errorf("path %q: two %s hashes", path, a)
		}
		f.Hashes = append(f.Hashes, h)
	}
	return p.onFile(&f)
}

func (p *manifestParser) dirHashes(content, structure []rawValue, both bool, where string) ([]DirHash, error) {
	if !both {
		return nil, fmt.Errorf("%s: directory hashes need <content> and <structure>", where)
	}
	var out []DirHash
	for _, v := range content {
		a, known := ascAlgo(v.name)
		if !known {
			p.warns.add(fmt.Sprintf("%s: unknown hash format <%s> skipped", where, v.name))
			continue
		}
		d := DirHash{Algo: a, Content: strings.TrimSpace(v.text)}
		for _, s := range structure {
			if s.name == v.name {
				d.Structure = strings.TrimSpace(s.text)
			}
		}
		if d.Structure == "" {
			return nil, fmt.Errorf("%s: %s content hash without a structure hash", where, a)
		}
		if err := CheckValue(a, d.Content); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := CheckValue(a, d.Structure); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ascAlgo maps an element name to an ASC MHL algorithm.
func ascAlgo(name string) (hashing.Algo, bool) {
	for _, a := range hashing.All {
		if a.InASCMHL() && a.String() == name {
			return a, true
		}
	}
	return 0, false
}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid date %q (want xs:dateTime, e.g. 2026-11-20T09:30:00Z)", s)
}

// ParseChain reads a chain file. Sequence numbers must count 1, 2, 3...
// and each entry names a manifest file in the ascmhl folder with a valid
// c4. LoadHistory reads a chain more leniently (see readChain): there a
// damaged entry is a Problem of the history, not an error.
func ParseChain(data []byte) ([]ChainEntry, error) {
	entries, problems, err := readChain(data)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, errors.New(problems[0])
	}
	return entries, nil
}

// readChain reads a chain file. err is set when the file is not a chain
// at all (not XML, another root element); each damaged entry is a
// problem: a sequence number out of count (the entry is kept), a path that
// is not a file name in the ascmhl folder (the entry is left out, never
// read), a c4 that is not a valid C4 id (the entry is kept with it, so its
// manifest is read, and can never match).
func readChain(data []byte) (entries []ChainEntry, problems []string, err error) {
	var x struct {
		XMLName xml.Name
		Lists   []struct {
			Seq  string `xml:"sequencenr,attr"`
			Path string `xml:"path"`
			C4   string `xml:"c4"`
		} `xml:"hashlist"`
	}
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&x); err != nil {
		return nil, nil, fmt.Errorf("not valid XML: %w", err)
	}
	if x.XMLName.Local != "ascmhldirectory" || x.XMLName.Space != ChainNamespace {
		return nil, nil, fmt.Errorf("not an ASC MHL chain: root element {%s}%s, want {%s}ascmhldirectory", x.XMLName.Space, x.XMLName.Local, ChainNamespace)
	}
	for i, l := range x.Lists {
		seq, err := strconv.Atoi(strings.TrimSpace(l.Seq))
		if err != nil || seq != i+1 {
			problems = append(problems, fmt.Sprintf("entry %d has sequencenr %q: want %d (a continuous count from 1)", i+1, l.Seq, i+1))
			seq = i + 1
		}
		p := strings.TrimSpace(l.Path)
		if !ValidName(p) || strings.Contains(p, "/") {
			problems = append(problems, fmt.Sprintf("generation %d: path %q is not a file name in the ascmhl folder: refused", seq, p))
			continue
		}
		c4 := strings.TrimSpace(l.C4)
		if _, err := hashing.DecodeC4(c4); err != nil {
			problems = append(problems, fmt.Sprintf("generation %d (%s): the chain's c4 is malformed: %v", seq, p, err))
		}
		entries = append(entries, ChainEntry{Seq: seq, Path: p, C4: c4})
	}
	return entries, problems, nil
}
