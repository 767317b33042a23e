package ascmhl

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
}

var manifestName = regexp.MustCompile(`^(\d{4,})_.*\.mhl$`)

// LoadHistory reads the history of the scope st. It returns ErrNoHistory
// when there is no ascmhl folder, and an error when the folder cannot be
// read or the chain file is missing or unreadable. A history with
// Problems is returned with them listed: the caller decides.
func LoadHistory(st Store) (*History, error) {
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
		return nil, fmt.Errorf("%s/ has no %s: the history's table of contents is missing", HistoryDir, ChainFile)
	}
	if err != nil {
		return nil, err
	}
	chain, err := ParseChain(chainData)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", HistoryDir, ChainFile, err)
	}
	h := &History{}
	inChain := map[string]bool{}
	for _, c := range chain {
		inChain[c.Path] = true
		name := HistoryDir + "/" + c.Path
		g := Generation{Seq: c.Seq, File: c.Path}
		if m := manifestName.FindStringSubmatch(c.Path); m == nil {
			h.Problems = append(h.Problems, fmt.Sprintf("%s: the name does not follow NNNN_<folder>_<date>_<time>Z.mhl", name))
		} else if n, _ := strconv.Atoi(m[1]); n != c.Seq {
			h.Warnings = append(h.Warnings, fmt.Sprintf("%s is generation %d in the chain", name, c.Seq))
		}
		data, err := st.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			h.Problems = append(h.Problems, fmt.Sprintf("%s is missing (listed in the chain as generation %d)", name, c.Seq))
			h.Generations = append(h.Generations, g)
			continue
		}
		if err != nil {
			return nil, err
		}
		g.C4 = C4(data)
		if g.C4 != c.C4 {
			h.Problems = append(h.Problems, fmt.Sprintf("%s was changed after it was written: its c4 is %s, the chain says %s", name, g.C4, c.C4))
		}
		m, warns, err := ParseManifest(data)
		for _, w := range warns {
			h.Warnings = append(h.Warnings, name+": "+w)
		}
		if err != nil {
			h.Problems = append(h.Problems, fmt.Sprintf("%s is not a valid manifest: %v", name, err))
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
	return h, nil
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

// Records collects every file recorded in the history, by path.
func (h *History) Records() map[string]*Record {
	out := map[string]*Record{}
	for _, g := range h.Generations {
		if g.Manifest == nil {
			continue
		}
		for _, f := range g.Manifest.Files {
			r := out[f.Path]
			if r == nil {
				r = &Record{Path: f.Path, Size: -1, Values: map[hashing.Algo]string{}, FirstSeq: g.Seq}
				out[f.Path] = r
			}
			if f.Size >= 0 {
				r.Size = f.Size
			}
			failed := false
			for _, hv := range f.Hashes {
				if hv.Action == Failed {
					failed = true
					continue
				}
				if _, ok := r.Values[hv.Algo]; !ok {
					r.Values[hv.Algo] = hv.Value
				}
			}
			r.LastFailed = failed && !hasUsable(f)
			if r.LastFailed {
				r.FailedSeq = g.Seq
			}
		}
	}
	return out
}

func hasUsable(f File) bool {
	for _, h := range f.Hashes {
		if h.Action != Failed {
			return true
		}
	}
	return false
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
// folder, created by an operation that started at start:
// NNNN_<folder>_<YYYY-MM-DD>_<HHMMSS>Z.mhl (UTC). Characters a file name or
// XML cannot carry are replaced by "_".
func ManifestName(seq int, folder string, start time.Time) string {
	var b strings.Builder
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
	return fmt.Sprintf("%04d_%s_%s.mhl", seq, b.String(), start.UTC().Format("2006-01-02_150405Z"))
}

// Append writes m as the next generation of the history in st: the
// manifest first (never replacing a file), then the chain rewritten with
// the new entry; both atomically. folder names the scope in the manifest's
// file name, start is when the operation began. h is the history loaded
// from st (nil when there is none yet); Append refuses a history with
// problems. It returns the manifest's name inside st.
func Append(st Store, h *History, m *Manifest, folder string, start time.Time) (string, error) {
	if h != nil && len(h.Problems) > 0 {
		return "", fmt.Errorf("the existing history is damaged, not appending to it: %s", strings.Join(h.Problems, "; "))
	}
	data, err := m.Marshal()
	if err != nil {
		return "", err
	}
	seq := h.NextSeq()
	name := ManifestName(seq, folder, start)
	var chain []ChainEntry
	if h != nil {
		for _, g := range h.Generations {
			chain = append(chain, ChainEntry{Seq: g.Seq, Path: g.File, C4: g.C4})
		}
	}
	chain = append(chain, ChainEntry{Seq: seq, Path: name, C4: C4(data)})
	if err := st.MkdirAll(HistoryDir); err != nil {
		return "", err
	}
	if err := st.WriteFileAtomic(HistoryDir+"/"+name, data, false); err != nil {
		return "", err
	}
	if err := st.WriteFileAtomic(HistoryDir+"/"+ChainFile, MarshalChain(chain), true); err != nil {
		return "", err
	}
	return HistoryDir + "/" + name, nil
}
