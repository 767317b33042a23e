package ascmhl

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

func streamManifest() *Manifest {
	at := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	h := func(s string) []Hash {
		return []Hash{{Algo: hashing.XXH64, Value: hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(s)).Get(hashing.XXH64), Action: Original, Date: at}}
	}
	dh := []DirHash{{Algo: hashing.XXH64, Content: "0123456789abcdef", Structure: "fedcba9876543210"}}
	return &Manifest{Created: at, Host: "cart", Tool: "dit", ToolVersion: "1", Process: ProcessTransfer, Root: dh,
		Ignore: []string{".DS_Store"}, References: []Reference{{Path: "sub/ascmhl/0001.mhl", C4: "c4x"}},
		Files: []File{{Path: "a-c.mov", Size: 1, Hashes: h("1")}, {Path: "a/b.mov", Size: 2, Mtime: at, Hashes: h("2")},
			{Path: "a/\xff", Size: 3, Hashes: h("3")}, {Path: "a/\xffz", Size: 3, Hashes: h("4")}, {Path: "b.mov", Size: -1, Hashes: h("5")}},
		Dirs: []Dir{{Path: "a", Mtime: at, Hashes: dh}, {Path: "e", Hashes: dh}},
	}
}

// TestWriteManifestIsMarshal: entries given in the manifest's order make
// Marshal's bytes (a folder after its files, one named "\xff" too).
func TestWriteManifestIsMarshal(t *testing.T) {
	m := streamManifest()
	want, err := m.Marshal()
	require.NoError(t, err)
	var got bytes.Buffer
	err = WriteManifest(&got, m, func(mw *ManifestWriter) error {
		for _, e := range m.entries() {
			var err error
			if e.file != nil {
				err = mw.File(e.file)
			} else {
				err = mw.Dir(e.dir)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, string(want), got.String())

	empty := *m
	empty.Files, empty.Dirs = nil, nil
	want, err = empty.Marshal()
	require.NoError(t, err)
	got.Reset()
	require.NoError(t, WriteManifest(&got, m, func(*ManifestWriter) error { return nil }))
	require.Equal(t, string(want), got.String())
	require.NotContains(t, got.String(), "<hashes>")
}

func TestWriteManifestRefusesDisorderAndBadEntries(t *testing.T) {
	m := streamManifest()
	write := func(entries func(*ManifestWriter) error) error {
		return WriteManifest(&bytes.Buffer{}, m, entries)
	}
	require.ErrorContains(t, write(func(mw *ManifestWriter) error {
		require.NoError(t, mw.File(&m.Files[1]))
		return mw.File(&m.Files[0])
	}), "out of order")
	require.ErrorContains(t, write(func(mw *ManifestWriter) error {
		require.NoError(t, mw.File(&m.Files[0]))
		return mw.File(&m.Files[0])
	}), "twice")
	require.ErrorContains(t, write(func(mw *ManifestWriter) error {
		return mw.File(&File{Path: "../x", Hashes: m.Files[0].Hashes})
	}), "invalid path")
	require.ErrorContains(t, write(func(mw *ManifestWriter) error {
		return mw.File(&File{Path: "x"})
	}), "no ASC MHL hash")
	bad := *m
	bad.Process = "copy"
	require.ErrorContains(t, WriteManifest(&bytes.Buffer{}, &bad, func(*ManifestWriter) error { return nil }), "invalid process")
}

// TestEachDirEntryListsEveryEntry: an OSStore's folder listed a few
// hundred entries at a time gives each entry once; a Store that embeds
// one (and lists more) is listed through its own ReadDir.
func TestEachDirEntryListsEveryEntry(t *testing.T) {
	dir := t.TempDir()
	want := map[string]bool{}
	for i := 0; i < 700; i++ {
		name := fmt.Sprintf("frame_%04d.dng", i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
		want[name] = true
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	want["sub"] = true
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()
	got := map[string]bool{}
	require.NoError(t, EachDirEntry(st, ".", func(e fs.DirEntry) error {
		require.False(t, got[e.Name()], e.Name())
		got[e.Name()] = true
		require.Equal(t, e.Name() == "sub", e.IsDir())
		return nil
	}))
	require.Equal(t, want, got)

	more := moreStore{st}
	got = map[string]bool{}
	require.NoError(t, EachDirEntry(more, ".", func(e fs.DirEntry) error { got[e.Name()] = true; return nil }))
	require.True(t, got["virtual"])
	require.Len(t, got, len(want)+1)
}

// moreStore lists one entry more than its folder holds.
type moreStore struct{ *OSStore }

func (m moreStore) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := m.OSStore.ReadDir(name)
	return append(ents, fs.FileInfoToDirEntry(fakeInfo("virtual"))), err
}

type fakeInfo string

func (f fakeInfo) Name() string       { return string(f) }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return 0 }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return nil }
