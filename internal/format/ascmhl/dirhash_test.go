package ascmhl

import (
	"fmt"
	"math/rand/v2"
	"path"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// TestDirHashesMatchReferenceTool uses values that ascmhl 1.2 (`ascmhl
// create -h xxh64 -h md5`) wrote for this tree: Clips/a.mov "hello",
// Clips/sub/b & "q".mov "world!", zero.txt empty, café.txt "x", empty/.
func TestDirHashesMatchReferenceTool(t *testing.T) {
	algos := []hashing.Algo{hashing.MD5, hashing.XXH64}
	sums := func(s string) map[hashing.Algo]string {
		b := hashing.Bytes(algos, []byte(s))
		return map[hashing.Algo]string{hashing.MD5: b.Get(hashing.MD5), hashing.XXH64: b.Get(hashing.XXH64)}
	}
	tree := Tree{
		Dirs: []string{".", "Clips", "Clips/sub", "empty"},
		Files: map[string]map[hashing.Algo]string{
			"Clips/a.mov":             sums("hello"),
			"Clips/sub/b & \"q\".mov": sums("world!"),
			"zero.txt":                sums(""),
			"caf\u00e9.txt":           sums("x"),
		},
	}
	got, err := DirHashes(tree, algos)
	require.NoError(t, err)
	want := map[string][]DirHash{
		".": {{hashing.MD5, "73ca3039aea26369a14b08949f88a4a2", "d7f187304fac4a44c86f8e816a15fec9"},
			{hashing.XXH64, "d64751586055abf2", "496234e33503c290"}},
		"Clips": {{hashing.MD5, "febd4a1f9e522b9975608a91ec590a65", "cf8be63e524f7b6be936a75d27eefa93"},
			{hashing.XXH64, "ac5bc107f210c736", "a62cf03ee3cc5a36"}},
		"Clips/sub": {{hashing.MD5, "345150eb7476cce5329b01166faa84d2", "b495bbac9a725b515bde8039bb319c3b"},
			{hashing.XXH64, "1568e08b83201618", "35c56426e42a69f2"}},
		"empty": {{hashing.MD5, "d41d8cd98f00b204e9800998ecf8427e", "d41d8cd98f00b204e9800998ecf8427e"},
			{hashing.XXH64, "ef46db3751d8e999", "ef46db3751d8e999"}},
	}
	require.Equal(t, want, got)

	// A file without an md5 leaves md5 out of its folder and every parent.
	delete(tree.Files["Clips/sub/b & \"q\".mov"], hashing.MD5)
	got, err = DirHashes(tree, algos)
	require.NoError(t, err)
	for _, d := range []string{".", "Clips", "Clips/sub"} {
		require.Len(t, got[d], 1, d)
		require.Equal(t, hashing.XXH64, got[d][0].Algo)
	}
	require.Len(t, got["empty"], 2)
}

// dirHasherOf runs a DirHasher over tree, depth first, and returns what
// DirHashes returns.
func dirHasherOf(t *testing.T, tree Tree, algos []hashing.Algo) map[string][]DirHash {
	t.Helper()
	out := map[string][]DirHash{}
	d := NewDirHasher(algos)
	var walk func(dir string)
	walk = func(dir string) {
		d.Enter(dir)
		for f, vals := range tree.Files {
			if path.Dir(f) == dir {
				require.NoError(t, d.File(f, func(a hashing.Algo) string { return vals[a] }))
			}
		}
		for _, sub := range tree.Dirs {
			if sub != "." && path.Dir(sub) == dir {
				walk(sub)
			}
		}
		p, hs := d.Leave()
		require.Equal(t, dir, p)
		if len(hs) > 0 {
			out[p] = hs
		}
	}
	walk(".")
	require.Zero(t, d.Depth())
	return out
}

// TestDirHasherIsDirHashes: the streaming folder hashes equal DirHashes'
// on the reference tool's tree and on random trees in every algorithm
// (c4's text sorts as its bytes, as hex does), children in any order.
func TestDirHasherIsDirHashes(t *testing.T) {
	algos := []hashing.Algo{hashing.C4, hashing.MD5, hashing.SHA1, hashing.XXH128, hashing.XXH3, hashing.XXH64}
	rng := rand.New(rand.NewPCG(7, 44))
	for round := 0; round < 20; round++ {
		tree := Tree{Dirs: []string{"."}, Files: map[string]map[hashing.Algo]string{}}
		dirs := []string{"."}
		for i := 0; i < 5+rng.IntN(10); i++ {
			parent := dirs[rng.IntN(len(dirs))]
			d := path.Join(parent, fmt.Sprintf("d%d", i))
			dirs = append(dirs, d)
			tree.Dirs = append(tree.Dirs, d)
		}
		for i := 0; i < 20+rng.IntN(200); i++ {
			f := path.Join(dirs[rng.IntN(len(dirs))], fmt.Sprintf("f%03d\u00e9.dng", i))
			b := hashing.Bytes(algos, []byte(f+fmt.Sprint(round)))
			vals := map[hashing.Algo]string{}
			for _, a := range algos {
				if round%4 != 3 || rng.IntN(30) > 0 { // now and then a value missing
					vals[a] = b.Get(a)
				}
			}
			tree.Files[f] = vals
		}
		want, err := DirHashes(tree, algos)
		require.NoError(t, err)
		for d, hs := range want {
			if len(hs) == 0 {
				delete(want, d)
			}
		}
		require.Equal(t, want, dirHasherOf(t, tree, algos), "round %d", round)
	}
}

func TestDirHasherRefusesABadValue(t *testing.T) {
	d := NewDirHasher([]hashing.Algo{hashing.XXH64})
	d.Enter(".")
	err := d.File("a/b.mov", func(hashing.Algo) string { return "abc" })
	require.ErrorContains(t, err, `"a/b.mov"`)
}
