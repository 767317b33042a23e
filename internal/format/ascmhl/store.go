package ascmhl

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/crashpoint"
)

// Store is the folder a history covers (its scope), seen through the few
// operations the writer, the reader and the verifier need. Names are
// relative, slash-separated and exact bytes (they may be NFC, NFD or not
// UTF-8 at all); "." or "" is the folder itself. A Store never resolves a
// name outside its folder: [ValidName] rejects "..", absolute names and
// empty elements, and implementations must not follow links out of it.
//
// [OSStore] is a folder of the operating system; a dit array (raid/) can
// plug its logical folders in by implementing the same methods.
type Store interface {
	// ReadFile returns the content of a regular file.
	ReadFile(name string) ([]byte, error)
	// ReadDir lists a folder, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Lstat describes an entry without following a final link.
	Lstat(name string) (fs.FileInfo, error)
	// Open opens a regular file for reading.
	Open(name string) (io.ReadCloser, error)
	// MkdirAll creates a folder and its missing parents.
	MkdirAll(name string) error
	// WriteFileAtomic makes data durable under name: written under a
	// temporary name in the same folder, synced, renamed, folder synced.
	// With replace false an existing name is never replaced: the error
	// then satisfies errors.Is(err, fs.ErrExist).
	WriteFileAtomic(name string, data []byte, replace bool) error
	// SetModTime sets an entry's modification time.
	SetModTime(name string, t time.Time) error
	// Remove removes a file or an empty folder (Recover: a temp or an
	// uncommitted manifest of dit's own).
	Remove(name string) error
}

// StreamWriter is a Store that writes a file as its content is
// produced, never holding it whole: WriteFileAtomic's temporary name,
// sync, rename and folder sync, with the content written by write (an
// error from write leaves nothing behind and is returned). [OSStore] and
// [FSStore] are; WriteFileAtomicFrom falls back to WriteFileAtomic for a
// Store that is not.
type StreamWriter interface {
	WriteFileAtomicFrom(name string, replace bool, write func(io.Writer) error) error
}

// WriteFileAtomicFrom writes name in st with the content write gives:
// streamed when st is a StreamWriter, else gathered and written by
// st.WriteFileAtomic.
func WriteFileAtomicFrom(st Store, name string, replace bool, write func(io.Writer) error) error {
	if sw, ok := st.(StreamWriter); ok {
		return sw.WriteFileAtomicFrom(name, replace, write)
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return st.WriteFileAtomic(name, b.Bytes(), replace)
}

func writeData(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// writeBuffered writes write's content to w through a 64 KiB buffer.
func writeBuffered(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// ValidName reports whether name is a relative slash path that stays inside
// its folder: no leading slash, no "", "." or ".." element and no NUL. "."
// alone is the folder itself. A backslash is an ordinary character of a
// name (the specification separates with "/" only; Linux and macOS names
// may hold "\", and the reference tool records and verifies them as they
// are), except where the operating system takes it as a separator
// (Windows): there a name holding one is refused, as it could not be
// the file it names.
func ValidName(name string) bool {
	if name == "." {
		return true
	}
	if name == "" || strings.IndexByte(name, 0) >= 0 || name[0] == '/' ||
		os.PathSeparator == '\\' && strings.IndexByte(name, '\\') >= 0 {
		return false
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}

func checkName(op, name string) (string, error) {
	if name == "" {
		name = "."
	}
	if !ValidName(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: errors.New("not a path inside the folder (absolute, .., or empty element)")}
	}
	return name, nil
}

// OSStore is a Store on a folder of the operating system. Every access goes
// through an [os.Root], so neither a ".." nor a symbolic link can lead
// outside the folder.
type OSStore struct {
	dir  string
	root *os.Root
}

// OpenOSStore opens dir as a Store. Close it when done.
func OpenOSStore(dir string) (*OSStore, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &OSStore{dir: dir, root: r}, nil
}

// Dir is the folder the store was opened on.
func (s *OSStore) Dir() string { return s.dir }

// Close releases the folder.
func (s *OSStore) Close() error { return s.root.Close() }

// ReadFile implements Store.
func (s *OSStore) ReadFile(name string) ([]byte, error) {
	n, err := checkName("read", name)
	if err != nil {
		return nil, err
	}
	return s.root.ReadFile(n)
}

// ReadDir implements Store.
func (s *OSStore) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := checkName("readdir", name)
	if err != nil {
		return nil, err
	}
	f, err := s.root.Open(n)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}

// EachDirEntry calls fn with each entry of folder name of st, in no
// particular order: from an OSStore a few hundred at a time, so that a
// folder of a hundred thousand frames is never held as DirEntries (each
// with its FileInfo: ~300 bytes), from another Store through ReadDir.
func EachDirEntry(st Store, name string, fn func(fs.DirEntry) error) error {
	s, ok := st.(*OSStore) // exactly: a Store embedding one may list more
	if !ok {
		ents, err := st.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := checkName("readdir", name)
	if err != nil {
		return err
	}
	f, err := s.root.Open(n)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(256)
		for _, e := range ents {
			if err := fn(e); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Lstat implements Store.
func (s *OSStore) Lstat(name string) (fs.FileInfo, error) {
	n, err := checkName("lstat", name)
	if err != nil {
		return nil, err
	}
	return s.root.Lstat(n)
}

// Open implements Store. It refuses anything but a regular file.
func (s *OSStore) Open(name string) (io.ReadCloser, error) {
	n, err := checkName("open", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.root.Lstat(n)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s)", fi.Mode().Type())}
	}
	return s.root.Open(n)
}

// MkdirAll implements Store.
func (s *OSStore) MkdirAll(name string) error {
	n, err := checkName("mkdir", name)
	if err != nil {
		return err
	}
	return s.root.MkdirAll(n, 0o755)
}

// SetModTime implements Store.
func (s *OSStore) SetModTime(name string, t time.Time) error {
	n, err := checkName("chtimes", name)
	if err != nil {
		return err
	}
	return s.root.Chtimes(n, t, t)
}

// Remove implements Store.
func (s *OSStore) Remove(name string) error {
	n, err := checkName("remove", name)
	if err != nil {
		return err
	}
	return s.root.Remove(n)
}

// tempSuffix ends the names of files still being written; it is the
// engine's offload.TempSuffix, so a temp left by a killed process is
// removed when a job next writes to the card folder.
const tempSuffix = ".dit-tmp"

// WriteFileAtomic implements Store. The no-replace check and the rename are
// two steps: dit holds the destination's lock while it seals, so no other
// dit writes there in between.
func (s *OSStore) WriteFileAtomic(name string, data []byte, replace bool) error {
	return s.WriteFileAtomicFrom(name, replace, writeData(data))
}

// WriteFileAtomicFrom implements StreamWriter: WriteFileAtomic with the
// content written by write as it is produced.
func (s *OSStore) WriteFileAtomicFrom(name string, replace bool, write func(io.Writer) error) error {
	n, err := checkName("write", name)
	if err != nil {
		return err
	}
	dir, base := ".", n
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		dir, base = n[:i], n[i+1:]
	}
	if !replace {
		if _, err := s.root.Lstat(n); err == nil {
			return &fs.PathError{Op: "write", Path: name, Err: fs.ErrExist}
		}
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := "." + base + "." + hex.EncodeToString(rnd[:]) + tempSuffix
	if dir != "." {
		tmp = dir + "/" + tmp
	}
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = writeBuffered(f, write)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		crashpoint.Hit("store: temp written " + crashName(base))
		err = s.root.Rename(tmp, n)
	}
	if err != nil {
		s.root.Remove(tmp)
		return err
	}
	d, err := s.root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// crashName is how a crash step names a file: with every digit an N, so
// that names holding dates and numbers name the same step in every run.
func crashName(base string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'N'
		}
		return r
	}, base)
}
