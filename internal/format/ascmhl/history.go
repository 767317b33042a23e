package ascmhl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/hashing"
)

// ErrNoHistory means the folder has no ascmhl folder.
var ErrNoHistory = errors.New("no ASC MHL history (no ascmhl folder)")

// Generation is one manifest of a history.
type Generation struct {
	Seq      int
	File     string // name in the ascmhl folder
	C4       string // of the file's bytes as read
	Manifest *Manifest
}

// History is the ascmhl folder of a scope: the chain and its manifests.
type History struct {
	Generations []Generation
	// Problems make the history unusable as proof: a manifest missing,
	// changed after it was written (its c4 differs from the chain), not in
	// the chain, or not a valid manifest. Each names the file.
	Problems []string
	// Warnings are what the reader skipped (unknown hash formats, ...).
	Warnings []string

	idx *index // Verify's records (loadHistory with compact); Manifest.Files are then empty
}

var manifestName = regexp.MustCompile(`^(\d{4,})_.*\.mhl$`)

// LoadHistory reads the history of the scope st. It returns ErrNoHistory
// when there is no ascmhl folder, and an error when the folder cannot be
// read or the chain file is missing or unreadable. A history with
// Problems is returned with them listed: the caller decides. A chain that
// is there but damaged (not a chain, an entry out of count, naming a path
// outside the ascmhl folder, or with a malformed c4) is such a problem.
//
// Manifests are streamed (hashed and parsed in one read, never held
// whole); the Manifests returned hold every record, so their size grows
// with the history's: Verify reads a history with less (see the package
// doc).
func LoadHistory(st Store) (*History, error) {
	return loadHistory(st, loadFull)
}

// LoadHistoryHeads reads the history of st as LoadHistory does, every
// manifest parsed and checked and its c4 compared with the chain, but
// keeps no file or folder record: each Manifest has its creator,
// process, root hash and ignore patterns, its Files and Dirs empty.
// Memory does not grow with the files (a seal reads its history back
// after appending this way). A path recorded twice in one manifest is
// not noticed here (LoadHistory says so).
func LoadHistoryHeads(st Store) (*History, error) {
	return loadHistory(st, loadHeads)
}

// LoadHistoryIndexed reads the history of st as LoadHistory does, every
// manifest parsed and checked, but keeps its file records in Verify's
// compact index (History.Records), not in Manifest.Files (kept too only
// for a small history): for a caller that needs the manifests' heads and
// the records by path, as a seal extending a history and an offload
// checking a card against the history it carries do. The index's bulk
// is on disk once read (indexspill.go): a history of a million files is
// held in ~12 MB (its table), not ~1 GB parsed nor ~80-120 MB in memory.
func LoadHistoryIndexed(st Store) (*History, error) {
	return loadHistory(st, loadCompact)
}

// loadMode is what loadHistory keeps of each manifest's records.
type loadMode int

const (
	loadFull    loadMode = iota // every record, in Manifest.Files and Dirs
	loadCompact                 // Verify's index (History.idx); Files only of a small history
	loadHeads                   // none
	loadSorted                  // a large history: folders only, each manifest's file order checked (Verify's merge)
)

// loadHistory reads the history of st. With loadCompact, file records go
// to an index (History.idx) instead of Manifest.Files, and hold only what
// Verify needs; with loadHeads nowhere.
func loadHistory(st Store, mode loadMode) (*History, error) {
	compact := mode == loadCompact || mode == loadSorted
	fi, err := st.Lstat(HistoryDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoHistory
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", HistoryDir)
	}
	ents, err := st.ReadDir(HistoryDir)
	if err != nil {
		return nil, err
	}
	chainData, err := st.ReadFile(HistoryDir + "/" + ChainFile)
	if errors.Is(err, fs.ErrNotExist) {
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".mhl") && !strings.HasPrefix(e.Name(), "._") {
				return nil, fmt.Errorf("%s/ has no %s: the history's table of contents is missing", HistoryDir, ChainFile)
			}
		}
		// An ascmhl folder without a chain or a manifest: no generation was
		// ever committed here (a first one interrupted, see Recover).
		return nil, ErrNoHistory
	}
	if err != nil {
		return nil, err
	}
	h := &History{}
	warns := &warnList{}
	if compact {
		h.idx = newDiskIndex()
		defer h.idx.freeze()
	}
	chain, problems, err := readChain(chainData)
	if err != nil {
		h.Problems = append(h.Problems, fmt.Sprintf("%s/%s is damaged: %v", HistoryDir, ChainFile, err))
		return h, nil
	}
	for _, p := range problems {
		h.Problems = append(h.Problems, fmt.Sprintf("%s/%s is damaged: %s", HistoryDir, ChainFile, p))
	}
	// Verify keeps the file records of a small history too (callers look
	// at them); a large one has only its index.
	keepFiles := !compact
	if compact {
		var total int64
		for _, c := range chain {
			if fi, err := st.Lstat(HistoryDir + "/" + c.Path); err == nil {
				total += fi.Size()
			}
		}
		keepFiles = total <= keepFilesUpTo
		h.idx.dirsOnly = mode == loadSorted && !keepFiles
	}
	inChain := map[string]bool{}
	for i, c := range chain {
		inChain[c.Path] = true
		name := HistoryDir + "/" + c.Path
		if i == len(chain)-1 && h.idx != nil {
			h.idx.lastGeneration()
		}
		g := Generation{Seq: c.Seq, File: c.Path}
		if m := manifestName.FindStringSubmatch(c.Path); m == nil {
			h.Problems = append(h.Problems, fmt.Sprintf("%s: the name does not follow NNNN_<folder>_<date>_<time>Z.mhl", name))
		} else if n, _ := strconv.Atoi(m[1]); n != c.Seq {
			warns.add(fmt.Sprintf("%s is generation %d in the chain", name, c.Seq))
		}
		m, c4, perr, err := readManifest(st, name, c.Seq, h.idx, keepFiles && mode != loadHeads, mode == loadHeads, warns)
		if errors.Is(err, fs.ErrNotExist) {
			h.Problems = append(h.Problems, fmt.Sprintf("%s is missing (listed in the chain as generation %d)", name, c.Seq))
			h.Generations = append(h.Generations, g)
			continue
		}
		if err != nil {
			if fi, lerr := st.Lstat(name); lerr == nil && !fi.Mode().IsRegular() {
				h.Problems = append(h.Problems, fmt.Sprintf("%s is not a regular file (%s): not read", name, fi.Mode().Type()))
				h.Generations = append(h.Generations, g)
				continue
			}
			return nil, err
		}
		g.C4 = c4
		if _, bad := hashing.DecodeC4(c.C4); bad == nil && g.C4 != c.C4 {
			h.Problems = append(h.Problems, fmt.Sprintf("%s was changed after it was written: its c4 is %s, the chain says %s", name, g.C4, c.C4))
		}
		if perr != nil {
			h.Problems = append(h.Problems, fmt.Sprintf("%s is not a valid manifest: %v", name, perr))
		} else {
			g.Manifest = m
		}
		h.Generations = append(h.Generations, g)
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".mhl") || strings.HasPrefix(e.Name(), "._") || inChain[e.Name()] {
			continue
		}
		h.Problems = append(h.Problems, fmt.Sprintf("%s/%s is not in the chain (added or renamed after the chain was written)", HistoryDir, e.Name()))
	}
	h.Warnings = warns.strings()
	return h, nil
}

// ioErrReader remembers an error of the reader under it, so that a
// manifest that cannot be read is told from one that does not parse.
type ioErrReader struct {
	r   io.Reader
	err error
}

func (e *ioErrReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// keepFilesUpTo is the size of a history's manifests (all generations)
// up to which Verify also keeps every file record in Manifest.Files, as
// LoadHistory does: about 80,000 records.
var keepFilesUpTo int64 = 16 << 20 // a variable for the tests

// readManifest reads the manifest name of generation seq in one pass:
// its c4 and its records. With idx, file and folder records go to idx,
// Manifest.Dirs is kept, and Manifest.Files only with keepFiles; without
// idx the Manifest holds them all. perr says why the manifest is not
// valid; err that it could not be read.
func readManifest(st Store, name string, seq int, idx *index, keepFiles, heads bool, warns *warnList) (m *Manifest, c4 string, perr, err error) {
	f, err := st.Open(name)
	if err != nil {
		return nil, "", nil, err
	}
	defer f.Close()
	sum := hashing.C4.New()
	src := &ioErrReader{r: f}
	tee := io.TeeReader(src, sum)
	pw := &warnList{}
	switch {
	case heads:
		none := func(*File) error { return nil }
		m, perr = parseManifest(tee, pw, none, func(*Dir) error { return nil })
	case idx == nil:
		var ws []string
		m, ws, perr = ReadManifest(tee)
		for _, w := range ws {
			pw.add(w)
		}
	default:
		var files []File
		var dirs []Dir
		m, perr = parseManifest(tee, pw,
			func(f *File) error {
				if err := idx.addFile(seq, f); err != nil {
					return err
				}
				if keepFiles {
					files = append(files, *f)
				}
				return nil
			},
			func(d *Dir) error {
				if err := idx.addDir(seq, d); err != nil {
					return err
				}
				dirs = append(dirs, *d)
				return nil
			})
		if m != nil {
			m.Files, m.Dirs = files, dirs
		}
	}
	// The c4 covers every byte, also those after the root element or
	// after a parse error.
	if _, cerr := io.Copy(io.Discard, tee); cerr != nil && src.err == nil {
		src.err = cerr
	}
	if src.err != nil {
		return nil, "", nil, fmt.Errorf("reading %s: %w", name, src.err)
	}
	for _, w := range pw.list {
		warns.add(name + ": " + w)
	}
	for i := 0; i < pw.more; i++ {
		warns.more++
	}
	if perr != nil {
		m = nil
	}
	return m, hashing.EncodeC4(sum.Sum(nil)), perr, nil
}

// Latest returns the newest readable manifest, or nil.
func (h *History) Latest() *Manifest {
	for i := len(h.Generations) - 1; i >= 0; i-- {
		if m := h.Generations[i].Manifest; m != nil {
			return m
		}
	}
	return nil
}

// DefaultIgnore is the ignore list of a new history, as the specification
// and the reference tool have it: .DS_Store files and ascmhl folders. The
// patterns are matched by package ignore (internal/format/ignore).
var DefaultIgnore = []string{".DS_Store", "ascmhl", "ascmhl/"}

// IgnorePatterns returns the newest generation's ignore list, or the
// default list when no generation has one.
func (h *History) IgnorePatterns() []string {
	if h != nil {
		if m := h.Latest(); m != nil && len(m.Ignore) > 0 {
			return m.Ignore
		}
	}
	return append([]string(nil), DefaultIgnore...)
}

// Record is what a history knows of one file: for each algorithm, the
// earliest value not marked failed, and whether its latest record failed.
type Record struct {
	Path       string
	Size       int64 // latest recorded size, -1 if none
	Values     map[hashing.Algo]string
	FirstSeq   int // generation of the first record
	LastFailed bool
	FailedSeq  int
}

// Records collects every file recorded in the history, by path. A file
// renamed (its record carries a previousPath) is found under its new path
// only, with what was recorded under the old one. They are held in
// Verify's compact index (records.go), not a map of Records.
func (h *History) Records() *Records {
	if h == nil {
		return nil
	}
	if h.idx != nil {
		return &Records{x: h.idx}
	}
	x := newDiskIndex()
	for _, g := range h.Generations {
		if g.Manifest == nil {
			continue
		}
		for i := range g.Manifest.Files {
			x.addFile(g.Seq, &g.Manifest.Files[i])
		}
	}
	x.freeze()
	return &Records{x: x}
}

// NextSeq is the number the next generation gets.
func (h *History) NextSeq() int {
	if h == nil {
		return 1
	}
	n := 0
	for _, g := range h.Generations {
		n = max(n, g.Seq)
	}
	return n + 1
}

// ManifestName builds the file name of generation seq of the folder named
// folder, created at created (the generation's own creationdate):
// NNNN_<folder>_<YYYY-MM-DD>_<HHMMSS>Z.mhl (UTC). Characters a file name or
// XML cannot carry are replaced by "_", and the folder's part is cut to
// [MaxFolderPart] bytes, so that the name and the temporary name it is
// written under stay within a file name's 255 bytes.
func ManifestName(seq int, folder string, created time.Time) string {
	return fmt.Sprintf("%04d_%s_%s.mhl", seq, safeFolder(folder), created.UTC().Format("2006-01-02_150405Z"))
}

// PackingListName is the file name Flatten's manifest gets, as the
// reference tool names it: packinglist_<folder>_<YYYY-MM-DD>_<HHMMSS>Z.mhl.
func PackingListName(folder string, t time.Time) string {
	return fmt.Sprintf("packinglist_%s_%s.mhl", safeFolder(folder), t.UTC().Format("2006-01-02_150405Z"))
}

// MaxFolderPart is how many bytes of a folder's name go into the name of a
// file dit writes for it (a manifest, a packing list, an MHL v1.1 list):
// with the generation number, the date and the extension the name stays
// under 200 bytes, and its temporary name (".<name>.<random>.dit-tmp")
// under the 255 bytes a file name can have.
const MaxFolderPart = 160

// CutName returns s cut to at most n bytes, at a character boundary (a
// byte that is not UTF-8 counts as one character).
func CutName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for i < len(s) {
		_, w := utf8.DecodeRuneInString(s[i:])
		if i+w > n {
			break
		}
		i += w
	}
	return s[:i]
}

// safeFolder replaces what a file name or XML cannot carry by "_" and cuts
// the result to MaxFolderPart bytes.
func safeFolder(folder string) string {
	var b strings.Builder
	folder = CutName(folder, MaxFolderPart)
	for i := 0; i < len(folder); {
		r, n := utf8.DecodeRuneInString(folder[i:])
		switch {
		case r == utf8.RuneError && n <= 1, !isXMLChar(r), r < 0x20, r == '/', r == '\\':
			b.WriteByte('_')
		default:
			b.WriteString(folder[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Append writes m as the next generation of the history in st: the
// manifest first (never replacing a file), then the chain rewritten with
// the new entry; both atomically. folder names the scope in the manifest's
// file name, which carries the generation's own creation time
// (m.Created), as its creationdate does. h is the history loaded from st
// (nil when there is none yet); Append refuses a history with problems. It
// returns the manifest's name inside st.
func Append(st Store, h *History, m *Manifest, folder string) (string, error) {
	if h != nil && len(h.Problems) > 0 {
		return "", fmt.Errorf("the existing history is damaged, not appending to it: %s", strings.Join(h.Problems, "; "))
	}
	if m.Created.IsZero() {
		return "", errors.New("the new generation has no creation time")
	}
	data, err := m.Marshal()
	if err != nil {
		return "", err
	}
	return commit(st, h, folder, m.Created, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// AppendFrom is Append with the manifest streamed to its file as it is
// written: m is the generation's header (m.Files and m.Dirs are not
// written), entries gives its files and folders in the manifest's order
// (see [ManifestWriter]), and the chain's c4 is taken from the bytes as
// they go to the file. Memory does not grow with the entries. An error
// (from entries, or an entry out of order or invalid) leaves no manifest
// and the chain as it was.
func AppendFrom(st Store, h *History, m *Manifest, folder string, entries func(*ManifestWriter) error) (string, error) {
	if h != nil && len(h.Problems) > 0 {
		return "", fmt.Errorf("the existing history is damaged, not appending to it: %s", strings.Join(h.Problems, "; "))
	}
	if m.Created.IsZero() {
		return "", errors.New("the new generation has no creation time")
	}
	head := *m
	head.Files, head.Dirs = nil, nil
	if err := head.check(); err != nil {
		return "", err
	}
	return commit(st, h, folder, m.Created, func(w io.Writer) error {
		return writeManifest(w, &head, false, entries)
	})
}

// commit writes the next generation's manifest (its bytes from write,
// hashed as they go) and then the chain listing it.
func commit(st Store, h *History, folder string, created time.Time, write func(io.Writer) error) (string, error) {
	seq := h.NextSeq()
	name := ManifestName(seq, folder, created)
	if err := st.MkdirAll(HistoryDir); err != nil {
		return "", err
	}
	sum := hashing.C4.New()
	err := WriteFileAtomicFrom(st, HistoryDir+"/"+name, false, func(w io.Writer) error {
		sum.Reset()
		return write(io.MultiWriter(w, sum))
	})
	if err != nil {
		return "", err
	}
	var chain []ChainEntry
	if h != nil {
		for _, g := range h.Generations {
			chain = append(chain, ChainEntry{Seq: g.Seq, Path: g.File, C4: g.C4})
		}
	}
	chain = append(chain, ChainEntry{Seq: seq, Path: name, C4: hashing.EncodeC4(sum.Sum(nil))})
	crashpoint.Hit("ascmhl: manifest written")
	if err := st.WriteFileAtomic(HistoryDir+"/"+ChainFile, MarshalChain(chain), true); err != nil {
		return "", err
	}
	return HistoryDir + "/" + name, nil
}
