package seal

import (
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"

	"github.com/dit-org/dit/internal/fsys"
)

// stagedFiles are verified files in their paths' byte order, with the
// names that sort between a folder and its own files ("A/b.x" before
// "A/b/...", "A/b-c" and "A/b 2" too), NFD and emoji, and files of other
// states and the history, which the cloud folder does not show.
func stagedFiles() []offload.SealFile {
	at := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	var fs []offload.SealFile
	for i, rel := range []string{"A/b 2", "A/b-c", "A/b.x", "A/b/c/d.ari", "A/b/c/e.ari", "A/b/f.ari", "A/bz",
		"Sce\u0301ne/📽️.mov", "ascmhl/ascmhl_chain.xml", "top.mov", "z/failed.mov"} {
		st := offload.StateVerified
		if rel == "z/failed.mov" {
			st = offload.StateFailed
		}
		fs = append(fs, offload.SealFile{Rel: rel, Size: int64(i + 1), Mtime: at.Add(time.Duration(i) * time.Second), State: st})
	}
	return fs
}

// The cloud folder the seal sees: each folder lists the verified files in
// it and the folders holding some, at the card's times; a file is
// described by its size and time and never read; the history and a
// failed copy are not there.
func TestStagedStoreListsTheCloudCopy(t *testing.T) {
	defer fsys.SetSpillDir(t.TempDir())()
	files := stagedFiles()
	dirTime := time.Date(2026, 11, 20, 7, 0, 0, 0, time.UTC)
	times := map[string]time.Time{"A": dirTime, "A/b": dirTime.Add(time.Hour), "A/b/c": dirTime, "Sce\u0301ne": dirTime}
	st, done, err := openStaged(offload.SealInfo{Stage: t.TempDir(), DirTimes: times, Files: offload.SealFileList(files)})
	require.NoError(t, err)
	defer done()
	// What each folder holds, from the list itself.
	want := map[string]map[string]fs.FileInfo{".": {}}
	for _, f := range files {
		if f.State != offload.StateVerified || isHistory(f.Rel) {
			continue
		}
		for d := path.Dir(f.Rel); d != "."; d = path.Dir(d) {
			if want[d] == nil {
				want[d] = map[string]fs.FileInfo{}
			}
		}
		for d := path.Dir(f.Rel); d != "."; d = path.Dir(d) {
			want[path.Dir(d)][path.Base(d)] = objectInfo{name: path.Base(d), mtime: times[d], dir: true}
		}
		want[path.Dir(f.Rel)][path.Base(f.Rel)] = objectInfo{name: path.Base(f.Rel), size: f.Size, mtime: f.Mtime}
	}
	for dir, ents := range want {
		got, err := st.ReadDir(dir)
		require.NoError(t, err, dir)
		var names, wantNames []string
		for _, e := range got {
			names = append(names, e.Name())
			fi, err := e.Info()
			require.NoError(t, err)
			w := ents[e.Name()]
			require.NotNil(t, w, "%s lists %s", dir, e.Name())
			require.Equal(t, w.IsDir(), fi.IsDir(), e.Name())
			require.Equal(t, w.ModTime(), fi.ModTime(), e.Name())
			if !w.IsDir() {
				require.Equal(t, w.Size(), fi.Size(), e.Name())
			}
		}
		for n := range ents {
			wantNames = append(wantNames, n)
		}
		sort.Strings(wantNames)
		require.Equal(t, wantNames, names, "folder %s", dir)
	}
	for _, f := range files {
		fi, err := st.Lstat(f.Rel)
		if f.State != offload.StateVerified || isHistory(f.Rel) {
			require.Error(t, err, f.Rel)
			continue
		}
		require.NoError(t, err, f.Rel)
		require.Equal(t, f.Size, fi.Size(), f.Rel)
		_, err = st.Open(f.Rel)
		require.ErrorIs(t, err, errCloudObject, f.Rel)
	}
	_, err = st.Lstat("A/b/c/nope.ari")
	require.ErrorIs(t, err, fs.ErrNotExist)
	fi, err := st.Lstat("A/b")
	require.NoError(t, err)
	require.True(t, fi.IsDir())

	// Out of their paths' order, the files are refused by name: the
	// seal would not list them right.
	bad := append([]offload.SealFile{files[3]}, files[:3]...)
	_, _, err = openStaged(offload.SealInfo{Stage: t.TempDir(), Files: offload.SealFileList(bad)})
	require.ErrorContains(t, err, "A/b 2 after A/b/c/d.ari")
}

// A cloud copy of 200,000 frames: the staged store holds a few bytes a
// file (before, a map of every file and its hashes, ~400 B a file).
func TestStagedStoreHoldsLittleAFile(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own")
	}
	defer fsys.SetSpillDir(t.TempDir())()
	const n = 200000
	at := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	files := offload.SealFiles(func(fn func(*offload.SealFile) error) error {
		for i := range n {
			clip := fmt.Sprintf("A001C%03d", i/1000)
			f := offload.SealFile{Rel: fmt.Sprintf("%s/%s.%07d.ari", clip, clip, i), Size: 512, Mtime: at, State: offload.StateVerified}
			if err := fn(&f); err != nil {
				return err
			}
		}
		return nil
	})
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	st, done, err := openStaged(offload.SealInfo{Stage: t.TempDir(), Files: files})
	require.NoError(t, err)
	defer done()
	ents, err := st.ReadDir("A001C199")
	require.NoError(t, err)
	require.Len(t, ents, 1000)
	runtime.GC()
	runtime.ReadMemStats(&b)
	held := int64(b.HeapAlloc) - int64(a.HeapAlloc)
	t.Logf("%d files: %.1f B a file held", n, float64(held)/n)
	require.Less(t, held, int64(8*n), "the list on disk, a record a folder")
	runtime.KeepAlive(st)
}
