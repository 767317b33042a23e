package hashing

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// Which hashers can save their state: the resume of a card read from the
// middle depends on it.
func TestMarshalable(t *testing.T) {
	want := map[Algo]bool{C4: true, MD5: true, SHA1: true, XXH64: true, XXH3: false, XXH128: false, BLAKE3: false}
	for a, m := range want {
		require.Equal(t, m, Marshalable(a), "%s", a)
	}
	require.True(t, AllMarshalable([]Algo{XXH64, MD5}))
	require.False(t, AllMarshalable([]Algo{XXH64, XXH3}))
}

// A cloned hasher and a saved-and-restored one go on as the original
// would: the digest of prefix+rest, whatever the algorithm; the clone is
// independent of the original.
func TestCloneAndRestoreGoOn(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdefghij"), 50000)
	prefix, rest := data[:333333], data[333333:]
	for _, a := range All {
		want := Bytes([]Algo{a}, data).Get(a)
		h := a.New()
		h.Write(prefix)
		c, ok := Clone(h)
		require.True(t, ok, "%s clones", a)
		h.Write([]byte("something else")) // the original goes its own way
		c.Write(rest)
		require.Equal(t, want, Encode(a, c.Sum(nil)), "%s: clone", a)
		if Marshalable(a) {
			h2 := a.New()
			h2.Write(prefix)
			b, err := Marshal(h2)
			require.NoError(t, err)
			r, err := Unmarshal(a, b)
			require.NoError(t, err)
			r.Write(rest)
			require.Equal(t, want, Encode(a, r.Sum(nil)), "%s: restored", a)
		}
	}
}

// A Multi snapshot taken mid-stream restores (Seed) into another Multi
// that then gives the digests of the whole stream from the rest alone.
func TestMultiSnapshotSeed(t *testing.T) {
	data := bytes.Repeat([]byte("zyxwvutsrq"), 70000)
	algos := []Algo{C4, MD5, SHA1, XXH64}
	m := NewMulti(algos, 4)
	defer m.Close()
	m.Write(data[:100000], nil)
	snap := m.Snapshot()
	m.Write(data[100000:], nil)
	full := m.Sum()
	require.Equal(t, Bytes(algos, data), full)
	states, err := snap.Wait()
	require.NoError(t, err)
	s := States{}
	for _, a := range algos {
		h, err := Unmarshal(a, states[a])
		require.NoError(t, err)
		s[a] = h
	}
	m2 := NewMulti(algos, 4)
	defer m2.Close()
	m2.Seed(s)
	m2.Write(data[100000:], nil)
	require.Equal(t, full, m2.Sum())
	m2.Write(data, nil) // reset after Sum: the next stream from empty
	require.Equal(t, full, m2.Sum())

	m3 := NewMulti([]Algo{XXH3}, 1)
	defer m3.Close()
	_, err = m3.Snapshot().Wait()
	require.Error(t, err, "xxh3 cannot save its state")
}
