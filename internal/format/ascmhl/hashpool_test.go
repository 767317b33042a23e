package ascmhl

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// Create hashes HashWorkers files at once and Verify too: 40 files of
// sizes up to 3 MiB in three folders are recorded with crypto/md5's
// hashes, verify, and files changed in place (same size) are found, each
// once, in the order a file-by-file walk finds them, with the new and
// the missing ones.
func TestManyFilesAtOnce(t *testing.T) {
	files := map[string]string{}
	want := map[string]string{}
	r := rand.New(rand.NewPCG(4, 3))
	for i := range 40 {
		b := make([]byte, []int{0, 1, 64, 65, 4096, 1<<20 + 3, 3 << 20}[i%7]+r.IntN(100))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		p := fmt.Sprintf("%s/f%02d.bin", []string{"A", "B/C", "D"}[i%3], i)
		files[p] = string(b)
		s := md5.Sum(b)
		want[p] = hex.EncodeToString(s[:])
	}
	dir, st := scopeWith(t, files)
	res := create(t, st, CreateOptions{Algos: md5x})
	require.True(t, res.OK(), "%v", res.Findings)
	require.Equal(t, 40, res.Files)
	m := latest(t, st)
	require.Len(t, m.Files, 40)
	for _, f := range m.Files {
		got := ""
		for _, h := range f.Hashes {
			if h.Algo == hashing.MD5 {
				got = h.Value
			}
		}
		require.Equal(t, want[f.Path], got, f.Path)
	}
	v, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true, DirectoryHashes: true})
	require.NoError(t, err)
	require.True(t, v.OK(), "%v", v.Findings)
	require.Equal(t, 40, v.Files)

	// Changed in place, a new file and a missing one.
	for _, p := range []string{"D/f38.bin", "A/f00.bin", "B/C/f13.bin", "A/f27.bin"} {
		b := []byte(files[p])
		if len(b) == 0 {
			continue
		}
		b[len(b)/2] ^= 1
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B/new.bin"), []byte("new"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "D/f05.bin")))
	var seen []string
	v, err = Verify(context.Background(), st, VerifyOptions{AllHashes: true, OnFinding: func(f Finding) { seen = append(seen, string(f.Kind)+" "+f.Path) }})
	require.NoError(t, err)
	// A/f00 is empty (size 0 + up to 99 bytes): changed only if it has a byte.
	var order []string
	if len(files["A/f00.bin"]) > 0 {
		order = append(order, string(FindChanged)+" A/f00.bin")
	}
	order = append(order, string(FindChanged)+" A/f27.bin", string(FindChanged)+" B/C/f13.bin", string(FindNew)+" B/new.bin",
		string(FindChanged)+" D/f38.bin", string(FindMissing)+" D/f05.bin")
	require.Equal(t, order, seen)
	var kinds []string
	for _, f := range v.Findings {
		kinds = append(kinds, string(f.Kind)+" "+f.Path)
	}
	require.Equal(t, order, kinds)
}
