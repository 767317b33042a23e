package mhlv1

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
)

// ErrNoList means a folder has no MHL v1.1 list at its top.
var ErrNoList = errors.New("no MHL v1.1 list (*.mhl with <hashlist version=\"1.1\">)")

// Value is one hash element of an entry as read: its element name (md5,
// sha1, xxhash64be, xxhash64, xxhash, null, ...) and its text.
type Value struct {
	Name, Text string
}

// Entry is one <hash> of a list as read.
type Entry struct {
	Path   string // as written (Verify resolves a "\", see listedPath)
	Size   int64  // -1 when the list gives none
	Values []Value
}

// Header is the creator info of a list.
type Header struct {
	Version, Name, Username, Hostname, Tool, StartDate, FinishDate string
	// Empty are the empty files dit's writer names in a comment instead of
	// listing them (MHL v1.1 sizes are positive), as written (readable
	// form); EmptyCount is the count the comment gives.
	Empty      []string
	EmptyCount int
}

// emptyComment is the start of the comment in which dit names the empty
// files it leaves out: " N empty file(s) not listed (...): a, b ".
const emptyComment = " empty file(s) not listed ("

// Read reads an MHL v1.1 list from r token by token, handing each <hash>
// to onEntry as it is read (the Entry is reused: copy what you keep). It
// returns the creator info, and an error when the document is not an MHL
// v1.x list or is not well-formed; onEntry's errors stop it.
func Read(r io.Reader, onEntry func(*Entry) error) (*Header, error) {
	if _, ok := r.(io.ByteReader); !ok {
		r = bufio.NewReaderSize(r, 256<<10)
	}
	d := xml.NewDecoder(r)
	var root xml.StartElement
	for {
		t, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid XML: %w", err)
		}
		if se, ok := t.(xml.StartElement); ok {
			root = se
			break
		}
	}
	h := &Header{Version: attr(root, "version")}
	if root.Name.Local != "hashlist" || !strings.HasPrefix(h.Version, "1.") {
		return nil, fmt.Errorf("not an MHL v1.1 list: root element <%s> version %q", root.Name.Local, h.Version)
	}
	lr := &listReader{d: d, h: h}
	e := &Entry{}
	err := lr.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "creatorinfo":
			return lr.creatorInfo()
		case "hash":
			if err := lr.entry(e); err != nil {
				return err
			}
			return onEntry(e)
		}
		if err := d.Skip(); err != nil {
			return fmt.Errorf("not valid XML: %w", err)
		}
		return nil
	}, h.noteEmpty)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// listReader reads the elements of a list's root, token by token.
type listReader struct {
	d   *xml.Decoder
	h   *Header
	buf []byte
}

// text is the character data of the element just started, up to its
// end (child elements skipped).
func (lr *listReader) text() (string, error) {
	lr.buf = lr.buf[:0]
	for {
		t, err := lr.d.Token()
		if err != nil {
			return "", fmt.Errorf("not valid XML: %w", err)
		}
		switch t := t.(type) {
		case xml.CharData:
			lr.buf = append(lr.buf, t...)
		case xml.StartElement:
			if err := lr.d.Skip(); err != nil {
				return "", fmt.Errorf("not valid XML: %w", err)
			}
		case xml.EndElement:
			return string(lr.buf), nil
		}
	}
}

// children calls f for each child element of the element just started
// (and comment, if not nil, for each comment in it).
func (lr *listReader) children(f func(se xml.StartElement) error, comment func(xml.Comment)) error {
	for {
		t, err := lr.d.Token()
		if err != nil {
			return fmt.Errorf("not valid XML: %w", err)
		}
		switch t := t.(type) {
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		case xml.Comment:
			if comment != nil {
				comment(t)
			}
		case xml.EndElement:
			return nil
		}
	}
}

// creatorInfo reads <creatorinfo> into the header.
func (lr *listReader) creatorInfo() error {
	h := lr.h
	fields := map[string]*string{"name": &h.Name, "username": &h.Username, "hostname": &h.Hostname,
		"tool": &h.Tool, "startdate": &h.StartDate, "finishdate": &h.FinishDate}
	return lr.children(func(se xml.StartElement) error {
		s, err := lr.text()
		if dst := fields[se.Name.Local]; dst != nil {
			*dst = strings.TrimSpace(s)
		}
		return err
	}, nil)
}

// entry reads a <hash> into e (its Values reused): the file, its size
// and every hash value; dates are left out.
func (lr *listReader) entry(e *Entry) error {
	*e = Entry{Size: -1, Values: e.Values[:0]}
	hasFile := false
	err := lr.children(func(se xml.StartElement) error {
		s, err := lr.text()
		if err != nil {
			return err
		}
		switch se.Name.Local {
		case "file":
			hasFile = true
			e.Path = s
		case "size":
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("%q: invalid size %q", e.Path, s)
			}
			e.Size = n
		case "creationdate", "lastmodificationdate", "hashdate":
		default:
			e.Values = append(e.Values, Value{Name: se.Name.Local, Text: strings.TrimSpace(s)})
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	if !hasFile {
		return fmt.Errorf("a <hash> without a <file>")
	}
	return nil
}

// noteEmpty reads the comment in which dit names the empty files it left
// out (the first such comment of the list's root).
func (h *Header) noteEmpty(c xml.Comment) {
	s := string(c)
	i := strings.Index(s, emptyComment)
	j := strings.Index(s, "): ")
	if i < 0 || j < i || h.EmptyCount > 0 {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(s[:i]))
	if err != nil || n <= 0 {
		return
	}
	h.EmptyCount = n
	h.Empty = strings.Split(strings.TrimSpace(s[j+3:]), ", ")
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// Find returns the names of the MHL v1.1 lists at the top of st: regular
// files named *.mhl whose root element is <hashlist version="1.x">, in
// name order (the names end in their creation time).
func Find(st ascmhl.Store) ([]string, error) {
	ents, err := st.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(strings.ToLower(n), ".mhl") || strings.HasPrefix(n, "._") {
			continue
		}
		if isV1(st, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// isV1 reads the start of the file name up to its root element.
func isV1(st ascmhl.Store, name string) bool {
	f, err := st.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	d := xml.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, 64<<10), 4096))
	for {
		t, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := t.(xml.StartElement); ok {
			return se.Name.Local == "hashlist" && strings.HasPrefix(attr(se, "version"), "1.")
		}
	}
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// OnFinding, if set, is called with each finding as it is made.
	OnFinding func(ascmhl.Finding)
}

// VerifyResult is the outcome of Verify.
type VerifyResult struct {
	Lists    []string // the lists read, by name
	Files    int      // files that match their entries
	Bytes    int64
	Findings []ascmhl.Finding
	Warnings []string
}

// OK reports whether everything matched.
func (r *VerifyResult) OK() bool { return len(r.Findings) == 0 }

// maxUnlisted is how many files not in any list a warning names.
const maxUnlisted = 20

// Verify checks the folder st against every MHL v1.1 list at its top (see
// Find): each listed file must be there, with the listed size and every
// hash the list gives (md5, sha1, xxhash64be; the deprecated
// little-endian xxhash64 and the decimal XXH32 xxhash too; null means
// size only). Each file missing, changed or unreadable is a finding, and
// so is a list that is damaged (not well-formed, a path that leaves the
// folder). Files in the folder that no list names are warnings, not
// findings: a list names what was copied, nothing more. Lists are read as
// they stream: only the names of the listed files are held. Verify
// returns ErrNoList when there is no list.
func Verify(ctx context.Context, st ascmhl.Store, opt VerifyOptions) (*VerifyResult, error) {
	lists, err := Find(st)
	if err != nil {
		return nil, err
	}
	if len(lists) == 0 {
		return nil, ErrNoList
	}
	res := &VerifyResult{Lists: lists}
	add := func(f ascmhl.Finding) {
		res.Findings = append(res.Findings, f)
		if opt.OnFinding != nil {
			opt.OnFinding(f)
		}
	}
	listed := map[string]bool{}
	buf := make([]byte, 1<<20)
	unknown := map[string]bool{}
	for _, name := range lists {
		f, err := st.Open(name)
		if err != nil {
			return res, err
		}
		hdr, perr := Read(f, func(e *Entry) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			p, ok := listedPath(st, e.Path)
			if !ok {
				add(ascmhl.Finding{Kind: ascmhl.FindHistory, Path: name, Detail: fmt.Sprintf("lists %q, which leaves the folder or is not a relative path: refused", e.Path)})
				return nil
			}
			listed[p] = true
			ok, n, err := checkEntry(ctx, st, p, e, buf, add, unknown)
			if err != nil {
				return err
			}
			if ok {
				res.Files++
				res.Bytes += n
			}
			return nil
		})
		f.Close()
		if errors.Is(perr, context.Canceled) || errors.Is(perr, context.DeadlineExceeded) {
			return res, perr
		}
		if perr != nil {
			add(ascmhl.Finding{Kind: ascmhl.FindHistory, Path: name, Detail: "the list is damaged: " + perr.Error()})
			continue
		}
		checkEmpty(st, name, hdr, listed, res, add)
	}
	for n := range unknown {
		res.Warnings = append(res.Warnings, fmt.Sprintf("hash format <%s> is not known: not checked", n))
	}
	sort.Strings(res.Warnings)
	// Files no list names.
	var unlisted []string
	count := 0
	ign := ignore.New(ascmhl.DefaultIgnore)
	isList := map[string]bool{}
	for _, l := range lists {
		isList[l] = true
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		ents, err := st.ReadDir(dir)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			rel := e.Name()
			if dir != "." {
				rel = dir + "/" + rel
			}
			if ign.Match(rel, e.IsDir()) || isList[rel] || listed[rel] {
				continue
			}
			if e.IsDir() {
				if err := walk(rel); err != nil {
					return err
				}
				continue
			}
			if dir == "." && strings.HasSuffix(strings.ToLower(rel), ".mhl") {
				continue
			}
			count++
			if len(unlisted) < maxUnlisted {
				unlisted = append(unlisted, ascmhl.DisplayName(rel))
			}
		}
		return ctx.Err()
	}
	if err := walk("."); err != nil {
		return res, err
	}
	if count > 0 {
		w := fmt.Sprintf("%d file(s) in the folder are in no MHL v1.1 list (not checked): %s", count, strings.Join(unlisted, ", "))
		if count > len(unlisted) {
			w += ", ..."
		}
		res.Warnings = append(res.Warnings, w)
	}
	return res, nil
}

// checkEntry checks one listed file: size, then every hash in one read.
func checkEntry(ctx context.Context, st ascmhl.Store, p string, e *Entry, buf []byte, add func(ascmhl.Finding), unknown map[string]bool) (bool, int64, error) {
	fi, err := st.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		add(ascmhl.Finding{Kind: ascmhl.FindMissing, Path: p, Detail: "listed in the MHL v1.1 list, not in the folder"})
		return false, 0, nil
	}
	if err != nil {
		add(ascmhl.Finding{Kind: ascmhl.FindUnread, Path: p, Detail: err.Error()})
		return false, 0, nil
	}
	if !fi.Mode().IsRegular() {
		add(ascmhl.Finding{Kind: ascmhl.FindChanged, Path: p, Detail: fmt.Sprintf("listed as a file, is %s", fi.Mode().Type())})
		return false, 0, nil
	}
	if e.Size >= 0 && fi.Size() != e.Size {
		add(ascmhl.Finding{Kind: ascmhl.FindChanged, Path: p, Detail: fmt.Sprintf("size %d, listed %d", fi.Size(), e.Size)})
		return false, 0, nil
	}
	var md5, sha1, xx64, xx32 bool
	for _, v := range e.Values {
		switch v.Name {
		case "md5":
			md5 = true
		case "sha1":
			sha1 = true
		case "xxhash64be", "xxhash64":
			xx64 = true
		case "xxhash":
			xx32 = true
		case "null":
		default:
			unknown[v.Name] = true
		}
	}
	type h struct {
		name string
		h    hash.Hash
	}
	var hs []h
	if md5 {
		hs = append(hs, h{"md5", hashing.MD5.New()})
	}
	if sha1 {
		hs = append(hs, h{"sha1", hashing.SHA1.New()})
	}
	if xx64 {
		hs = append(hs, h{"xxh64", hashing.XXH64.New()})
	}
	if xx32 {
		hs = append(hs, h{"xxh32", newXXH32()})
	}
	f, err := st.Open(p)
	if err != nil {
		add(ascmhl.Finding{Kind: ascmhl.FindUnread, Path: p, Detail: err.Error()})
		return false, 0, nil
	}
	defer f.Close()
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return false, n, err
		}
		k, err := f.Read(buf)
		for _, x := range hs {
			x.h.Write(buf[:k])
		}
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			add(ascmhl.Finding{Kind: ascmhl.FindUnread, Path: p, Detail: fmt.Sprintf("read error after %d bytes: %v", n, err)})
			return false, n, nil
		}
	}
	if e.Size >= 0 && n != e.Size {
		add(ascmhl.Finding{Kind: ascmhl.FindChanged, Path: p, Detail: fmt.Sprintf("read %d bytes, listed %d", n, e.Size)})
		return false, n, nil
	}
	sums := map[string][]byte{}
	for _, x := range hs {
		sums[x.name] = x.h.Sum(nil)
	}
	for _, v := range e.Values {
		got, ok := "", true
		switch v.Name {
		case "md5", "sha1":
			got = hex.EncodeToString(sums[v.Name])
			ok = strings.EqualFold(v.Text, got)
		case "xxhash64be":
			got = hex.EncodeToString(sums["xxh64"])
			ok = strings.EqualFold(v.Text, got)
		case "xxhash64":
			// Deprecated, little-endian; some tools wrote big-endian
			// under this name: either byte order of the same value.
			be := sums["xxh64"]
			le := make([]byte, len(be))
			for i := range be {
				le[i] = be[len(be)-1-i]
			}
			got = hex.EncodeToString(le)
			ok = strings.EqualFold(v.Text, got) || strings.EqualFold(v.Text, hex.EncodeToString(be))
		case "xxhash":
			s := sums["xxh32"]
			v32 := uint64(s[0])<<24 | uint64(s[1])<<16 | uint64(s[2])<<8 | uint64(s[3])
			got = strconv.FormatUint(v32, 10)
			want, err := strconv.ParseUint(v.Text, 10, 32)
			ok = err == nil && want == v32
		default:
			continue
		}
		if !ok {
			add(ascmhl.Finding{Kind: ascmhl.FindChanged, Path: p, Detail: fmt.Sprintf("%s %s, listed %s", v.Name, got, v.Text)})
			return false, n, nil
		}
	}
	return true, n, nil
}

// listedPath is the entry of st a list's path names, and false for a path
// that leaves the folder or is not a relative path. A "\" is a character
// of the name when the folder holds that name (dit writes names as they
// are, and Linux and macOS names may hold "\"); else it is taken as a
// separator (lists written on Windows).
//
// A path with a "%" that names no entry may be the readable form of a name
// XML cannot carry (ascmhl.DisplayName, which dit writes for it): the
// entry of the decoded name is taken when the folder holds it.
func listedPath(st ascmhl.Store, path string) (string, bool) {
	p, ok := separated(st, path)
	if !ok || !strings.Contains(p, "%") {
		return p, ok
	}
	if _, err := st.Lstat(p); err == nil {
		return p, true
	}
	if raw, ok := ascmhl.ParseDisplayName(p); ok && raw != p && ascmhl.ValidName(raw) {
		if _, err := st.Lstat(raw); err == nil {
			return raw, true
		}
	}
	return p, true
}

// separated is listedPath for the "\".
func separated(st ascmhl.Store, path string) (string, bool) {
	p := strings.TrimPrefix(path, "./")
	if !strings.Contains(p, "\\") {
		return p, ascmhl.ValidName(p) && p != "."
	}
	if ascmhl.ValidName(p) {
		if _, err := st.Lstat(p); err == nil {
			return p, true
		}
	}
	p = strings.TrimPrefix(strings.ReplaceAll(path, "\\", "/"), "./")
	return p, ascmhl.ValidName(p) && p != "."
}

// checkEmpty checks the empty files dit named in a list's comment: each
// must be there, and empty. Names are given in their readable form
// (ascmhl.DisplayName, "--" written "-%2D"); one that holds a "%" and is
// not found may be such a form and is not reported. When the names cannot
// be told apart (one holds ", ") they are left unchecked, with a warning.
func checkEmpty(st ascmhl.Store, list string, h *Header, listed map[string]bool, res *VerifyResult, add func(ascmhl.Finding)) {
	if h.EmptyCount == 0 {
		return
	}
	if len(h.Empty) != h.EmptyCount {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s names %d empty file(s) in a comment that cannot be told apart: not checked", list, h.EmptyCount))
		return
	}
	for _, n := range h.Empty {
		p, ok := listedPath(st, strings.ReplaceAll(n, "-%2D", "--"))
		if !ok {
			add(ascmhl.Finding{Kind: ascmhl.FindHistory, Path: list, Detail: fmt.Sprintf("names the empty file %q, which leaves the folder or is not a relative path: refused", n)})
			continue
		}
		fi, err := st.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !strings.Contains(p, "%") {
				add(ascmhl.Finding{Kind: ascmhl.FindMissing, Path: p, Detail: "named in the MHL v1.1 list as an empty file, not in the folder"})
			}
		case err != nil:
			add(ascmhl.Finding{Kind: ascmhl.FindUnread, Path: p, Detail: err.Error()})
		case !fi.Mode().IsRegular() || fi.Size() != 0:
			listed[p] = true
			add(ascmhl.Finding{Kind: ascmhl.FindChanged, Path: p, Detail: fmt.Sprintf("named in the MHL v1.1 list as an empty file, size %d", fi.Size())})
		default:
			listed[p] = true
			res.Files++
		}
	}
}
