package ascmhl

import (
	"bytes"
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
