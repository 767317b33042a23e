package ascmhl

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

type xValue struct {
	XMLName  xml.Name
	Action   string `xml:"action,attr"`
	HashDate string `xml:"hashdate,attr"`
	Value    string `xml:",chardata"`
}

type xPath struct {
	Size    string `xml:"size,attr"`
	LastMod string `xml:"lastmodificationdate,attr"`
	Value   string `xml:",chardata"`
}

type xDirHashes struct {
	Values []xValue `xml:",any"`
}

type xPathBytes struct {
	Encoding string `xml:"encoding,attr"`
	Value    string `xml:",chardata"`
}

type xMetadata struct {
	PathBytes *xPathBytes `xml:"urn:dit-org:dit:mhl:v1 pathbytes"`
}

// xEntry is a <hash> or a <directoryhash>.
type xEntry struct {
	XMLName      xml.Name
	Path         *xPath      `xml:"path"`
	Content      *xDirHashes `xml:"content"`
	Structure    *xDirHashes `xml:"structure"`
	PreviousPath *string     `xml:"previousPath"`
	Metadata     *xMetadata  `xml:"metadata"`
	Values       []xValue    `xml:",any"`
}

type xAuthor struct {
	Name  string `xml:",chardata"`
	Email string `xml:"email,attr"`
	Phone string `xml:"phone,attr"`
	Role  string `xml:"role,attr"`
}

type xHashList struct {
	XMLName xml.Name
	Version string `xml:"version,attr"`
	Creator *struct {
		CreationDate string `xml:"creationdate"`
		Hostname     string `xml:"hostname"`
		Tool         struct {
			Name    string `xml:",chardata"`
			Version string `xml:"version,attr"`
		} `xml:"tool"`
		Authors  []xAuthor `xml:"author"`
		Location string    `xml:"location"`
		Comment  string    `xml:"comment"`
	} `xml:"creatorinfo"`
	Process *struct {
		Process  string `xml:"process"`
		RootHash *struct {
			Content   *xDirHashes `xml:"content"`
			Structure *xDirHashes `xml:"structure"`
		} `xml:"roothash"`
		Ignore []string `xml:"ignore>pattern"`
	} `xml:"processinfo"`
	Hashes *struct {
		Entries []xEntry `xml:",any"`
	} `xml:"hashes"`
	References []struct {
		Path string `xml:"path"`
		C4   string `xml:"c4"`
	} `xml:"references>hashlistreference"`
}

// ParseManifest reads a manifest. It returns an error when the document is
// not a usable ASC MHL v2.0 manifest (not XML, wrong root, namespace or
// version, a missing required element, an invalid path, action or hash
// value) and warnings for what it skips: hash formats ASC MHL does not
// define, and hashes without an action.
func ParseManifest(data []byte) (*Manifest, []string, error) {
	var x xHashList
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, nil, fmt.Errorf("not valid XML: %w", err)
	}
	if x.XMLName.Local != "hashlist" || x.XMLName.Space != Namespace {
		return nil, nil, fmt.Errorf("not an ASC MHL manifest: root element {%s}%s, want {%s}hashlist", x.XMLName.Space, x.XMLName.Local, Namespace)
	}
	if x.Version != "2.0" {
		return nil, nil, fmt.Errorf("hashlist version %q: this reader knows ASC MHL version 2.0", x.Version)
	}
	if x.Creator == nil || x.Process == nil {
		return nil, nil, fmt.Errorf("creatorinfo and processinfo are required")
	}
	var warns []string
	m := &Manifest{Host: x.Creator.Hostname, Tool: strings.TrimSpace(x.Creator.Tool.Name), ToolVersion: x.Creator.Tool.Version,
		Location: x.Creator.Location, Comment: x.Creator.Comment, Process: strings.TrimSpace(x.Process.Process), Ignore: x.Process.Ignore}
	for _, a := range x.Creator.Authors {
		m.Authors = append(m.Authors, Author{Name: a.Name, Email: a.Email, Phone: a.Phone, Role: a.Role})
	}
	var err error
	if m.Created, err = parseTime(x.Creator.CreationDate); err != nil {
		return nil, nil, fmt.Errorf("creatorinfo/creationdate: %w", err)
	}
	if m.Host == "" || m.Tool == "" {
		return nil, nil, fmt.Errorf("creatorinfo needs a hostname and a tool")
	}
	switch m.Process {
	case ProcessInPlace, ProcessTransfer, ProcessFlatten:
	default:
		return nil, nil, fmt.Errorf("processinfo/process %q: want in-place, transfer or flatten", m.Process)
	}
	if rh := x.Process.RootHash; rh != nil {
		if m.Root, warns, err = parseDirHashes(rh.Content, rh.Structure, "roothash", warns); err != nil {
			return nil, nil, err
		}
	}
	seen := map[string]bool{}
	if x.Hashes != nil {
		if len(x.Hashes.Entries) == 0 {
			return nil, nil, fmt.Errorf("an empty <hashes> element (the schema wants at least one entry)")
		}
		for _, e := range x.Hashes.Entries {
			if e.Path == nil {
				return nil, nil, fmt.Errorf("a <%s> without a <path>", e.XMLName.Local)
			}
			p := e.Path.Value
			if e.Metadata != nil && e.Metadata.PathBytes != nil {
				raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(e.Metadata.PathBytes.Value))
				if err != nil || e.Metadata.PathBytes.Encoding != "base64" {
					return nil, nil, fmt.Errorf("path %q: unreadable dit:pathbytes", p)
				}
				p = string(raw)
			}
			p = strings.TrimSuffix(p, "/")
			if !ValidName(p) || p == "." {
				return nil, nil, fmt.Errorf("path %q leaves the folder or is not a relative path (absolute, .., or empty element): refused", p)
			}
			if seen[p] {
				return nil, nil, fmt.Errorf("path %q is recorded twice", p)
			}
			seen[p] = true
			var mt time.Time
			if e.Path.LastMod != "" {
				if mt, err = parseTime(e.Path.LastMod); err != nil {
					return nil, nil, fmt.Errorf("path %q: lastmodificationdate: %w", p, err)
				}
			}
			switch e.XMLName.Local {
			case "hash":
				f := File{Path: p, Size: -1, Mtime: mt}
				if e.Path.Size != "" {
					if f.Size, err = strconv.ParseInt(strings.TrimSpace(e.Path.Size), 10, 64); err != nil || f.Size < 0 {
						return nil, nil, fmt.Errorf("path %q: invalid size %q", p, e.Path.Size)
					}
				}
				if e.PreviousPath != nil {
					f.PreviousPath = *e.PreviousPath
				}
				for _, v := range e.Values {
					a, known := ascAlgo(v.XMLName.Local)
					if !known {
						warns = append(warns, fmt.Sprintf("%q: unknown hash format <%s> skipped", p, v.XMLName.Local))
						continue
					}
					h := Hash{Algo: a, Value: strings.TrimSpace(v.Value), Action: Action(v.Action)}
					switch h.Action {
					case Original, Verified, Failed:
					case "":
						warns = append(warns, fmt.Sprintf("%q: %s hash without an action (taken as original)", p, a))
						h.Action = Original
					default:
						return nil, nil, fmt.Errorf("path %q: %s action %q: want original, verified or failed", p, a, v.Action)
					}
					if err := CheckValue(a, h.Value); err != nil {
						return nil, nil, fmt.Errorf("path %q: %w", p, err)
					}
					if v.HashDate != "" {
						if h.Date, err = parseTime(v.HashDate); err != nil {
							return nil, nil, fmt.Errorf("path %q: hashdate: %w", p, err)
						}
					}
					if _, dup := f.Hash(a); dup {
						return nil, nil, fmt.Errorf("path %q: two %s hashes", p, a)
					}
					f.Hashes = append(f.Hashes, h)
				}
				m.Files = append(m.Files, f)
			case "directoryhash":
				d := Dir{Path: p, Mtime: mt}
				if d.Hashes, warns, err = parseDirHashes(e.Content, e.Structure, p, warns); err != nil {
					return nil, nil, err
				}
				m.Dirs = append(m.Dirs, d)
			default:
				warns = append(warns, fmt.Sprintf("unknown element <%s> in <hashes> skipped", e.XMLName.Local))
			}
		}
	}
	for _, r := range x.References {
		m.References = append(m.References, Reference{Path: r.Path, C4: strings.TrimSpace(r.C4)})
	}
	return m, warns, nil
}

func parseDirHashes(content, structure *xDirHashes, where string, warns []string) ([]DirHash, []string, error) {
	if content == nil || structure == nil {
		return nil, warns, fmt.Errorf("%s: directory hashes need <content> and <structure>", where)
	}
	var out []DirHash
	for _, v := range content.Values {
		a, known := ascAlgo(v.XMLName.Local)
		if !known {
			warns = append(warns, fmt.Sprintf("%s: unknown hash format <%s> skipped", where, v.XMLName.Local))
			continue
		}
		d := DirHash{Algo: a, Content: strings.TrimSpace(v.Value)}
		for _, s := range structure.Values {
			if s.XMLName.Local == v.XMLName.Local {
				d.Structure = strings.TrimSpace(s.Value)
			}
		}
		if d.Structure == "" {
			return nil, warns, fmt.Errorf("%s: %s content hash without a structure hash", where, a)
		}
		if err := CheckValue(a, d.Content); err != nil {
			return nil, warns, fmt.Errorf("%s: %w", where, err)
		}
		if err := CheckValue(a, d.Structure); err != nil {
			return nil, warns, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, d)
	}
	return out, warns, nil
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
// and each entry names a manifest file in the ascmhl folder.
func ParseChain(data []byte) ([]ChainEntry, error) {
	var x struct {
		XMLName xml.Name
		Lists   []struct {
			Seq  string `xml:"sequencenr,attr"`
			Path string `xml:"path"`
			C4   string `xml:"c4"`
		} `xml:"hashlist"`
	}
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&x); err != nil {
		return nil, fmt.Errorf("not valid XML: %w", err)
	}
	if x.XMLName.Local != "ascmhldirectory" || x.XMLName.Space != ChainNamespace {
		return nil, fmt.Errorf("not an ASC MHL chain: root element {%s}%s, want {%s}ascmhldirectory", x.XMLName.Space, x.XMLName.Local, ChainNamespace)
	}
	var out []ChainEntry
	for i, l := range x.Lists {
		seq, err := strconv.Atoi(strings.TrimSpace(l.Seq))
		if err != nil || seq != i+1 {
			return nil, fmt.Errorf("entry %d has sequencenr %q: want %d (a continuous count from 1)", i+1, l.Seq, i+1)
		}
		p := strings.TrimSpace(l.Path)
		if !ValidName(p) || strings.Contains(p, "/") {
			return nil, fmt.Errorf("generation %d: path %q is not a file name in the ascmhl folder: refused", seq, p)
		}
		c4 := strings.TrimSpace(l.C4)
		if _, err := hashing.DecodeC4(c4); err != nil {
			return nil, fmt.Errorf("generation %d: %w", seq, err)
		}
		out = append(out, ChainEntry{Seq: seq, Path: p, C4: c4})
	}
	return out, nil
}
