package ascmhl

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// randomTree fills dir with folders up to three deep of files of sizes 0
// to a few MiB under names that sort in awkward ways against their
// folders ("a", "a.txt", "a0", "a/"), Unicode (NFC and NFD, CJK, emoji),
// XML's special characters, a byte that is not UTF-8, empty folders,
// files the ignore list leaves out and a link.
func randomTree(t *testing.T, dir string, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	names := []string{"a", "a.txt", "a0", "A001C001.mov", "Ünïcødé.mxf", "e\u0301te.wav", "日本語", "space name", "x&y<z>'\"",
		"100%", "🎬 clip", "b\xfe.bin", "z", "Z", "a-b", "a_b", "skip.tmp"}
	sizes := []int{0, 1, 63, 64, 65, 4095, 4096, 65537, 1<<20 + 3, 3<<20 + 17}
	var fill func(d string, depth int)
	fill = func(d string, depth int) {
		require.NoError(t, os.MkdirAll(d, 0o755))
		used := map[string]bool{}
		for range r.IntN(6) {
			n := names[r.IntN(len(names))]
			if used[n] {
				continue
			}
			used[n] = true
			size := sizes[r.IntN(len(sizes))]
			if size > 1<<20 && r.IntN(3) > 0 {
				size = r.IntN(5000)
			}
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			require.NoError(t, os.WriteFile(filepath.Join(d, n), b, 0o644))
		}
		if depth >= 3 {
			return
		}
		for range r.IntN(4) {
			n := names[r.IntN(len(names))]
			if used[n] {
				continue
			}
			used[n] = true
			fill(filepath.Join(d, n), depth+1)
		}
	}
	fill(dir, 0)
	require.NoError(t, os.Symlink("a", filepath.Join(dir, "link")))
}

// twice runs Create on st the whole way (as before it streamed) and
// streamed, each on the same history (the ascmhl folder put back between
// them), and returns both results and the new manifests' bytes; the
// streamed one is left in place.
func twice(t *testing.T, dir string, st Store, opt CreateOptions) (whole, streamed *CreateResult, wb, sb []byte) {
	t.Helper()
	hist := filepath.Join(dir, HistoryDir)
	keep := filepath.Join(t.TempDir(), "keep")
	_, err := os.Stat(hist)
	had := err == nil
	if had {
		require.NoError(t, os.CopyFS(keep, os.DirFS(hist)))
	}
	run := func(whole bool) (*CreateResult, []byte, bool) {
		createWhole = whole
		defer func() { createWhole = false }()
		took := false
		testPoolHigh = func(int) { took = true }
		defer func() { testPoolHigh = nil }()
		res := create(t, st, opt)
		b, err := st.ReadFile(res.Manifests[len(res.Manifests)-1])
		require.NoError(t, err)
		return res, b, took
	}
	whole, wb, tookW := run(true)
	require.False(t, tookW)
	require.NoError(t, os.RemoveAll(hist))
	if had {
		require.NoError(t, os.CopyFS(hist, os.DirFS(keep)))
	}
	streamed, sb, tookS := run(false)
	require.True(t, tookS, "the folder was not streamed")
	return whole, streamed, wb, sb
}

func sameResult(t *testing.T, whole, streamed *CreateResult) {
	t.Helper()
	sortF := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.String())
		}
		sort.Strings(out)
		return out
	}
	require.Equal(t, sortF(whole.Findings), sortF(streamed.Findings))
	w, s := *whole, *streamed
	w.Findings, s.Findings = nil, nil
	sort.Strings(w.Warnings)
	sort.Strings(s.Warnings)
	require.Equal(t, w, s)
}

// dit mhl create streamed writes what it wrote whole: on random trees,
// the first generation and a second (every file verified, one changed
// in place: failed), with and without directory hashes, the manifests
// are the same bytes and the results the same; each verifies.
func TestCreateStreamedIsTheWholeBytes(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir, st := scopeWith(t, nil)
			randomTree(t, dir, seed)
			opt := CreateOptions{Algos: md5x, Ignore: []string{"*.tmp"}, NoDirectoryHashes: seed%3 == 2}
			if seed%2 == 1 {
				opt.Algos = []hashing.Algo{hashing.XXH64}
			}
			whole, streamed, wb, sb := twice(t, dir, st, opt)
			require.Equal(t, string(wb), string(sb))
			sameResult(t, whole, streamed)
			require.Positive(t, streamed.Files)

			// One file changed in place, the next generation.
			var changed string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && changed == "" && filepath.Ext(p) != ".tmp" && filepath.Base(filepath.Dir(p)) != HistoryDir {
					if fi, _ := d.Info(); fi.Size() > 0 {
						changed = p
					}
				}
				return nil
			})
			b, err := os.ReadFile(changed)
			require.NoError(t, err)
			b[0] ^= 1
			fi, err := os.Stat(changed)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(changed, b, 0o644))
			require.NoError(t, os.Chtimes(changed, fi.ModTime(), fi.ModTime()))
			opt.Algos = md5x
			whole, streamed, wb, sb = twice(t, dir, st, opt)
			require.Equal(t, string(wb), string(sb))
			sameResult(t, whole, streamed)
			require.Equal(t, 1, streamed.Failed, "%v", streamed.Findings)
			require.Equal(t, 2, streamed.Generation)
			v, err := Verify(context.Background(), st, VerifyOptions{DirectoryHashes: !opt.NoDirectoryHashes})
			require.NoError(t, err)
			require.Len(t, v.Findings, 1, "%v", v.Findings)
		})
	}
}

// gateStore holds the first file's read until the pool says it is full,
// or until 1,500 other files were opened (which a pool without its cap
// would come to).
type gateStore struct {
	Store
	first  string
	opened atomic.Int64
	gate   chan struct{}
	once   sync.Once
	before int64 // files opened when the first was let go
}

func (g *gateStore) release() {
	g.once.Do(func() {
		g.before = g.opened.Load()
		close(g.gate)
	})
}

func (g *gateStore) Open(name string) (io.ReadCloser, error) {
	if name == g.first {
		<-g.gate
	} else if g.opened.Add(1) >= 1500 {
		g.release()
	}
	return g.Store.Open(name)
}

// A file that reads long at the front does not make Create or Verify hold
// every file after it: while it reads, the files behind it are hashed
// only until the pool holds MaxQueued steps (files and folders), then
// the walk waits. 2,000 files, the first held until then: at most
// MaxQueued held at once, whatever the card's count.
func TestPoolHoldsABoundedWindow(t *testing.T) {
	files := map[string]string{"A/0first.bin": "x"}
	for i := range 2000 {
		files[fmt.Sprintf("A/f%04d.bin", i)] = fmt.Sprint(i)
	}
	_, st := scopeWith(t, files)
	var high int
	testPoolHigh = func(h int) { high = h }
	defer func() { testPoolHigh = nil }()
	for _, name := range []string{"create", "verify"} {
		g := &gateStore{Store: st, first: "A/0first.bin", gate: make(chan struct{})}
		testPoolFull = g.release
		if name == "create" {
			res, err := Create(context.Background(), g, CreateOptions{Algos: md5x, Now: func() time.Time { return t0 }})
			require.NoError(t, err)
			require.True(t, res.OK(), "%v", res.Findings)
			require.Equal(t, 2001, res.Files)
			require.LessOrEqual(t, high, MaxQueued+1) // the folder's leaving, queued after the last file
		} else {
			res, err := Verify(context.Background(), g, VerifyOptions{DirectoryHashes: true})
			require.NoError(t, err)
			require.True(t, res.OK(), "%v", res.Findings)
			require.Equal(t, 2001, res.Files)
		}
		testPoolFull = nil
		require.Less(t, g.before, int64(1500), "%s: the files behind the first were all hashed while it read", name)
	}
}

// dit mhl verify --directory-hashes computes the folders' hashes as it
// walks (holding only the folders open), and finds what DirHashes over
// the whole tree of the files it checked finds: on random trees with a
// file changed in place, one removed, one new and a new empty folder,
// the folder and root findings are those of the whole tree.
func TestVerifyDirectoryHashesAsItWalks(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir, st := scopeWith(t, nil)
			randomTree(t, dir, seed+10)
			create(t, st, CreateOptions{Algos: md5x, Ignore: []string{"*.tmp"}})
			v, err := Verify(context.Background(), st, VerifyOptions{DirectoryHashes: true})
			require.NoError(t, err)
			require.True(t, v.OK(), "%v", v.Findings)

			var files []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if d.IsDir() && d.Name() == HistoryDir {
					return filepath.SkipDir
				}
				if d.Type().IsRegular() && filepath.Ext(p) != ".tmp" {
					files = append(files, p)
				}
				return nil
			})
			require.GreaterOrEqual(t, len(files), 2)
			sort.Strings(files)
			b, err := os.ReadFile(files[len(files)/2])
			require.NoError(t, err)
			if len(b) == 0 {
				b = []byte("x") // a size changed: not hashed
			} else {
				b[len(b)-1] ^= 0x55
			}
			require.NoError(t, os.WriteFile(files[len(files)/2], b, 0o644))
			require.NoError(t, os.Remove(files[0]))
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(files[len(files)-1]), "new.bin"), []byte("new"), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "empty-new"), 0o755))

			// What the whole tree gives: every folder, and every recorded
			// file of its recorded size, hashed.
			m := latest(t, st)
			recorded := map[string]int64{}
			for _, f := range m.Files {
				recorded[f.Path] = f.Size
			}
			tree := Tree{Dirs: []string{"."}, Files: map[string]map[hashing.Algo]string{}}
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				rel, _ := filepath.Rel(dir, p)
				rel = filepath.ToSlash(rel)
				switch {
				case rel == ".":
				case d.IsDir() && d.Name() == HistoryDir:
					return filepath.SkipDir
				case d.IsDir():
					tree.Dirs = append(tree.Dirs, rel)
				case d.Type().IsRegular():
					fi, _ := d.Info()
					if size, ok := recorded[rel]; ok && size == fi.Size() {
						sums, err := HashFile(context.Background(), st, rel, md5x)
						require.NoError(t, err)
						tree.Files[rel] = sums
					}
				}
				return nil
			})
			got, err := DirHashes(tree, md5x)
			require.NoError(t, err)
			var want []string
			cmp := func(p string, recs []DirHash) {
				for _, w := range recs {
					for _, g := range got[p] {
						if g.Algo == w.Algo && (g.Content != w.Content || g.Structure != w.Structure) {
							want = append(want, p+" "+w.Algo.String())
						}
					}
				}
			}
			for _, d := range m.Dirs {
				if _, err := os.Stat(filepath.Join(dir, d.Path)); err == nil {
					cmp(d.Path, d.Hashes)
				}
			}
			cmp(".", m.Root)
			require.NotEmpty(t, want)

			v, err = Verify(context.Background(), st, VerifyOptions{DirectoryHashes: true})
			require.NoError(t, err)
			var seen []string
			for _, f := range v.Findings {
				if f.Kind == FindDirectory {
					seen = append(seen, f.Path+" "+strings.Fields(f.Detail)[1])
				}
			}
			sort.Strings(want)
			sort.Strings(seen)
			require.Equal(t, want, seen)
		})
	}
}
