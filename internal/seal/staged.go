package seal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/source"
)

// A cloud destination's card folder is not a folder of this machine: the
// engine stages the card's history in a local folder (SealInfo.Stage) and
// uploads what the seal writes there. The seal sees the card's folder on
// the remote through stagedStore: the stage's own entries (the ascmhl
// folder, an MHL v1.1 list) as they are, and beside them the card's files
// whose cloud copy is verified, with their sizes and times as the catalog
// has them, in the folders that hold them (an object store keeps no empty
// folder, so none is listed). Those files are never read: their hashes are
// the card's read, which the storage's checksum (or a read-back) matched.

// stagedStore is the card's folder on a cloud destination, for the seal.
// The cloud copy's verified files are a list in their paths' byte order
// (source.Files: front-coded, its full blocks on disk, as a card's list
// is), found by a search of it; a folder's entries are the files below
// it, which that order keeps together. Nothing is held a file (before,
// a map of every file with its hashes, ~400 B a file, and each folder
// listed by going through every file).
type stagedStore struct {
	*ascmhl.OSStore
	files *source.Files
	dirs  map[string]time.Time
}

func openStaged(info offload.SealInfo) (ascmhl.Store, func() error, error) {
	st, err := ascmhl.OpenOSStore(info.Stage)
	if err != nil {
		return nil, nil, err
	}
	s := &stagedStore{OSStore: st, files: source.NewFiles(), dirs: map[string]time.Time{}}
	last := ""
	err = info.Files.Each(func(f *offload.SealFile) error {
		if f.State != offload.StateVerified || isHistory(f.Rel) {
			return nil
		}
		if s.files.Len() > 0 && f.Rel <= last {
			return fmt.Errorf("the catalog gave the card's files out of their paths' order (%s after %s): no hash lists written", f.Rel, last)
		}
		last = f.Rel
		s.files.Add(source.Entry{Rel: f.Rel, Size: f.Size, Mtime: f.Mtime})
		for d := path.Dir(f.Rel); d != "."; d = path.Dir(d) {
			if _, ok := s.dirs[d]; ok {
				break // its parents are in too
			}
			s.dirs[d] = info.DirTimes[d]
		}
		return nil
	})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return s, st.Close, nil
}

// isHistory: rel is in the card's top-level ascmhl folder, which only the
// stage holds.
func isHistory(rel string) bool {
	return rel == ascmhl.HistoryDir || strings.HasPrefix(rel, ascmhl.HistoryDir+"/")
}

var errCloudObject = errors.New("a cloud object: not read by the seal")

// file is the cloud copy's verified file name, if it is one.
func (s *stagedStore) file(name string) (source.Entry, bool) {
	i := s.files.SearchInOrder(name)
	if i < s.files.Len() && s.files.ComparePath(i, name) == 0 {
		e := s.files.At(i)
		e.Mtime = e.Mtime.UTC() // as the catalog gives it
		return e, true
	}
	return source.Entry{}, false
}

// ReadDir lists the stage's entries and the cloud copy's files and
// folders under name.
func (s *stagedStore) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "" {
		name = "."
	}
	real, err := s.OSStore.ReadDir(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	_, virtual := s.dirs[name]
	if err != nil && !virtual && name != "." {
		return nil, err
	}
	seen := map[string]bool{}
	out := append([]fs.DirEntry(nil), real...)
	for _, e := range real {
		seen[e.Name()] = true
	}
	add := func(fi fs.FileInfo) {
		if !seen[fi.Name()] {
			seen[fi.Name()] = true
			out = append(out, fs.FileInfoToDirEntry(fi))
		}
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	// The files below name are together in the list: each is an entry
	// of name, or in one of its folders.
	var buf []byte
	for i := s.files.SearchInOrder(prefix); i < s.files.Len(); i++ {
		buf = s.files.AppendPath(buf[:0], i)
		if !bytes.HasPrefix(buf, []byte(prefix)) {
			break
		}
		rest := buf[len(prefix):]
		if k := bytes.IndexByte(rest, '/'); k >= 0 {
			sub := string(rest[:k])
			if !seen[sub] {
				add(objectInfo{name: sub, mtime: s.dirs[prefix+sub], dir: true})
			}
			continue
		}
		e := s.files.At(i)
		add(objectInfo{name: string(rest), size: e.Size, mtime: e.Mtime.UTC()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Lstat describes a stage entry, else a file or folder of the cloud copy.
func (s *stagedStore) Lstat(name string) (fs.FileInfo, error) {
	fi, err := s.OSStore.Lstat(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return fi, err
	}
	if f, ok := s.file(name); ok {
		return objectInfo{name: path.Base(name), size: f.Size, mtime: f.Mtime}, nil
	}
	if mt, ok := s.dirs[name]; ok {
		return objectInfo{name: path.Base(name), mtime: mt, dir: true}, nil
	}
	return nil, err
}

// ReadFile reads a stage file; a cloud object is not read.
func (s *stagedStore) ReadFile(name string) ([]byte, error) {
	if _, ok := s.file(name); ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errCloudObject}
	}
	return s.OSStore.ReadFile(name)
}

// Open opens a stage file; a cloud object is not read.
func (s *stagedStore) Open(name string) (io.ReadCloser, error) {
	if _, ok := s.file(name); ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errCloudObject}
	}
	return s.OSStore.Open(name)
}

// SetModTime sets a stage entry's time; the cloud copy's are left as
// they are.
func (s *stagedStore) SetModTime(name string, t time.Time) error {
	if _, err := s.OSStore.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return s.OSStore.SetModTime(name, t)
}

// objectInfo describes a file or folder of the cloud copy.
type objectInfo struct {
	name  string
	size  int64
	mtime time.Time
	dir   bool
}

func (o objectInfo) Name() string       { return o.name }
func (o objectInfo) Size() int64        { return o.size }
func (o objectInfo) ModTime() time.Time { return o.mtime }
func (o objectInfo) IsDir() bool        { return o.dir }
func (o objectInfo) Sys() any           { return nil }
func (o objectInfo) Mode() fs.FileMode {
	if o.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

func (o objectInfo) String() string { return fmt.Sprintf("%s (cloud object)", o.name) }
