package ascmhl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// verifyBoth verifies st with the index of every record and with the
// merge (every history taken as large), and requires the same outcome:
// the findings (the missing ones in the same order), files, bytes and
// warnings. It returns the merge's.
func verifyBoth(t *testing.T, st Store, opt VerifyOptions) *VerifyResult {
	t.Helper()
	verifyIndexed = true
	indexed, err := Verify(context.Background(), st, opt)
	verifyIndexed = false
	require.NoError(t, err)
	keep := keepFilesUpTo
	keepFilesUpTo = 0
	defer func() { keepFilesUpTo = keep }()
	merged, err := Verify(context.Background(), st, opt)
	require.NoError(t, err)
	require.Zero(t, merged.History.idx.n, "the merge held the history's file records")
	require.True(t, merged.History.idx.dirsOnly)
	strs := func(r *VerifyResult) (all, missing []string) {
		for _, f := range r.Findings {
			all = append(all, f.String())
			if f.Kind == FindMissing {
				missing = append(missing, f.String())
			}
		}
		sort.Strings(all)
		return all, missing
	}
	ia, im := strs(indexed)
	ma, mm := strs(merged)
	require.Equal(t, ia, ma)
	require.Equal(t, im, mm)
	require.Equal(t, indexed.Files, merged.Files)
	require.Equal(t, indexed.Bytes, merged.Bytes)
	sort.Strings(indexed.Warnings)
	sort.Strings(merged.Warnings)
	require.Equal(t, indexed.Warnings, merged.Warnings)
	return merged
}

// dit mhl verify of a large history holds no record a file: it reads the
// manifests again as it walks, merged by path. On random trees of two
// generations (the second after a file changed in place: recorded
// failed), then files changed, removed, added, a folder removed and one
// made, a file made a folder, it finds what the index of every record
// finds, with and without all hashes, directory hashes and sizes only.
func TestVerifyMergeIsTheIndex(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir, st := scopeWith(t, map[string]string{"b/1.mov": "one", "b/2.mov": "two", "b/3.mov": "three", "b/4": "four", "c/5": ""})
			randomTree(t, dir, seed+20)
			create(t, st, CreateOptions{Algos: md5x, Ignore: []string{"*.tmp"}})
			res := verifyBoth(t, st, VerifyOptions{DirectoryHashes: true})
			require.True(t, res.OK(), "%v", res.Findings)
			require.Positive(t, res.Files)

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
			sort.Strings(files)
			require.GreaterOrEqual(t, len(files), 4)
			flip := func(p string) {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				if len(b) == 0 {
					b = []byte("x")
				} else {
					b[len(b)/2] ^= 0x10
				}
				require.NoError(t, os.WriteFile(p, b, 0o644))
			}
			flip(files[1])
			create(t, st, CreateOptions{Algos: md5x}) // generation 2: files[1] failed
			flip(files[2])
			require.NoError(t, os.Remove(files[0]))
			require.NoError(t, os.Remove(files[3]))
			require.NoError(t, os.Mkdir(files[3], 0o755)) // a file made a folder
			require.NoError(t, os.WriteFile(filepath.Join(files[3], "in.bin"), []byte("in"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.new"), []byte("new"), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "new-folder"), 0o755))
			for _, opt := range []VerifyOptions{{}, {AllHashes: true}, {DirectoryHashes: true}, {SizesOnly: true}, {Ignore: []string{"*.mov"}}} {
				res := verifyBoth(t, st, opt)
				require.False(t, res.OK())
			}
		})
	}
}

// A history whose manifest lists a file with previousPath (a rename) is
// not merged: the index follows the rename.
func TestVerifyMergeNotForRenames(t *testing.T) {
	dir, st := scopeWith(t, map[string]string{"A/one.mov": "one", "A/two.mov": "two"})
	create(t, st, CreateOptions{Algos: md5x})
	require.NoError(t, os.Rename(filepath.Join(dir, "A/one.mov"), filepath.Join(dir, "A/uno.mov")))
	res := create(t, st, CreateOptions{Algos: md5x})
	require.Len(t, res.Renamed, 1)
	keep := keepFilesUpTo
	keepFilesUpTo = 0
	defer func() { keepFilesUpTo = keep }()
	v, err := Verify(context.Background(), st, VerifyOptions{})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
	require.False(t, v.History.idx.dirsOnly)
	require.Equal(t, 2, v.Files)
}
