package fsys

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Read-back must come from the medium: after OpenNoCache and a full read,
// none of the file's pages are left in the cache (so none were served
// from it before the drop either).
func TestOpenNoCacheDropsPages(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	if st.Type == unix.TMPFS_MAGIC {
		t.Skip("TMPDIR is tmpfs: its pages are the file itself and cannot be dropped; run on a disk filesystem")
	}
	p := filepath.Join(dir, "clip.mov")
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	w, err := OS{}.CreateTemp(dir, "x*")
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	require.NoError(t, w.Close())
	require.NoError(t, os.Rename(w.Name(), p))
	require.Greater(t, resident(t, p), 0, "just written: cached")

	f, err := OS{}.OpenNoCache(p)
	require.NoError(t, err)
	require.Equal(t, 0, resident(t, p), "dropped before the read-back")
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, data, got)
	require.Equal(t, 0, resident(t, p), "read-back leaves nothing cached behind it")
}

func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("new"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("precious"), 0o644))
	err := RenameNoReplace(OS{}, a, b)
	require.True(t, errors.Is(err, fs.ErrExist), "%v", err)
	got, _ := os.ReadFile(b)
	require.Equal(t, "precious", string(got))
	require.NoError(t, RenameNoReplace(OS{}, a, filepath.Join(dir, "c")))
}

func TestOpenNeverFollowsOrBlocks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "link")))
	_, err := OS{}.Open(filepath.Join(dir, "link"))
	require.Error(t, err, "a symlink is not followed")
	require.NoError(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	f, err := OS{}.Open(filepath.Join(dir, "fifo")) // must return at once
	if err == nil {
		f.Close()
	}
}

func TestFaultyInjects(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "card", "f.mov")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, make([]byte, 1000), 0o644))
	f := NewFaulty(OS{})
	f.Add(Fault{Match: "card/f.mov", ReadErrAt: 300})
	r, err := f.Open(p)
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.ErrorIs(t, err, unix.EIO)
	require.Len(t, b, 300)
	f.Add(Fault{Match: "dst", WriteErrAt: 10})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dst"), 0o755))
	w, err := f.CreateTemp(filepath.Join(dir, "dst"), "x*")
	require.NoError(t, err)
	n, err := w.Write(make([]byte, 64))
	require.Equal(t, 10, n)
	require.True(t, IsNoSpace(err))
	w.Close()
}

// Reading a card leaves its access times alone (O_NOATIME): with relatime,
// a plain read of a file last accessed long ago would update it.
func TestOpenLeavesAccessTimeAlone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "C001.mov")
	require.NoError(t, os.WriteFile(p, []byte("footage"), 0o644))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, old, old))
	for _, open := range []func(string) (File, error){OS{}.Open, OS{}.OpenNoCache} {
		f, err := open(p)
		require.NoError(t, err)
		_, err = io.ReadAll(f)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		var st unix.Stat_t
		require.NoError(t, unix.Stat(p, &st))
		require.Equal(t, old.Unix(), st.Atim.Sec, "access time written by a read")
	}
	// Listing a card's folder does not write the folder's either.
	dir := filepath.Dir(p)
	require.NoError(t, os.Chtimes(dir, old, old))
	ents, err := OS{}.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	var st unix.Stat_t
	require.NoError(t, unix.Stat(dir, &st))
	require.Equal(t, old.Unix(), st.Atim.Sec, "access time written by a listing")
}

// noSyncFS is an FS without syncfs (as a dit array).
type noSyncFS struct{ FS }

// OpenFSSyncer gives a syncer for a folder on a filesystem whose syncfs
// flushes (ext4, XFS, Btrfs, F2FS, tmpfs), which syncs (and reports no
// error on a healthy filesystem) and covers its own filesystem's folders
// only, none for other filesystems, none for a
// folder that is not there, and none for an FS without syncfs, also behind
// a Mux.
func TestOpenFSSyncer(t *testing.T) {
	dir := t.TempDir()
	if s := OpenFSSyncer(OS{}, dir); s == nil {
		t.Skipf("the temp folder %s is not on ext4, XFS, Btrfs, F2FS or tmpfs (or the kernel is older than 5.17): no syncfs to test here", dir)
	} else {
		s.Close()
	}
	require.Nil(t, OpenFSSyncer(OS{}, "/proc"), "procfs has no syncfs worth the name")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("frame"), 0o644))
	s := OpenFSSyncer(OS{}, dir)
	require.NotNil(t, s)
	require.NoError(t, s.SyncFS())
	sub := filepath.Join(dir, "day01")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.True(t, s.Covers(sub))
	require.True(t, s.Covers(dir))
	require.False(t, s.Covers("/proc/self"), "another filesystem (as one mounted below the destination)")
	require.False(t, s.Covers(filepath.Join(dir, "missing")))
	require.NoError(t, s.Close())
	require.Nil(t, OpenFSSyncer(OS{}, filepath.Join(dir, "missing")))
	m := NewMux(OS{})
	m.Mount(filepath.Join(dir, "array"), noSyncFS{OS{}})
	inArray := filepath.Join(dir, "array", "day01")
	require.NoError(t, os.MkdirAll(inArray, 0o755))
	if s := OpenFSSyncer(OS{}, inArray); s != nil {
		s.Close() // the folder itself has syncfs: only the Mux's route says no
	} else {
		t.Fatalf("%s: no syncer from OS", inArray)
	}
	require.Nil(t, OpenFSSyncer(m, inArray))
	s = OpenFSSyncer(m, dir)
	require.NotNil(t, s)
	require.NoError(t, s.Close())
}

// syncfs batches are used only on kernels whose syncfs reports the
// filesystem's own sync errors (5.17 and later).
func TestKernelAtLeast(t *testing.T) {
	for rel, want := range map[string]bool{
		"5.16.20":         false,
		"5.17.0":          true,
		"5.8.0":           false,
		"6.1.0-18-amd64":  true,
		"6.18.44-fc-v669": true,
		"4.19.0":          false,
		"10.0":            true,
		"":                false,
		"not a release":   false,
	} {
		require.Equal(t, want, kernelAtLeast(rel, 5, 17), rel)
	}
}
