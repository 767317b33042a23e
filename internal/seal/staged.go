package seal

import (
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
type stagedStore struct {
	*ascmhl.OSStore
	files map[string]offload.SealFile
	dirs  map[string]time.Time
}

func openStaged(info offload.SealInfo) (ascmhl.Store, func() error, error) {
	st, err := ascmhl.OpenOSStore(info.Stage)
	if err != nil {
		return nil, nil, err
	}
	s := &stagedStore{OSStore: st, files: map[string]offload.SealFile{}, dirs: map[string]time.Time{}}
	err = info.Files.Each(func(f *offload.SealFile) error {
		if f.State != offload.StateVerified || isHistory(f.Rel) {
			return nil
		}
		s.files[f.Rel] = *f
		for d := path.Dir(f.Rel); d != "."; d = path.Dir(d) {
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
	add := func(rel string, fi fs.FileInfo) {
		dir := path.Dir(rel)
		if dir != name || seen[fi.Name()] {
			return
		}
		seen[fi.Name()] = true
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	for rel, f := range s.files {
		add(rel, objectInfo{name: path.Base(rel), size: f.Size, mtime: f.Mtime})
	}
	for d, mt := range s.dirs {
		add(d, objectInfo{name: path.Base(d), mtime: mt, dir: true})
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
	if f, ok := s.files[name]; ok {
		return objectInfo{name: path.Base(name), size: f.Size, mtime: f.Mtime}, nil
	}
	if mt, ok := s.dirs[name]; ok {
		return objectInfo{name: path.Base(name), mtime: mt, dir: true}, nil
	}
	return nil, err
}

// ReadFile reads a stage file; a cloud object is not read.
func (s *stagedStore) ReadFile(name string) ([]byte, error) {
	if _, ok := s.files[name]; ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errCloudObject}
	}
	return s.OSStore.ReadFile(name)
}

// Open opens a stage file; a cloud object is not read.
func (s *stagedStore) Open(name string) (io.ReadCloser, error) {
	if _, ok := s.files[name]; ok {
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
