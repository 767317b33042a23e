package raid

import (
	"bytes"
	"crypto/subtle"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"
)

func randBytes(n int64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= len(b); i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := len(b) / 8 * 8; i < len(b); i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

var mtime0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func putFile(t testing.TB, a *Array, p string, data []byte) *Manifest {
	t.Helper()
	w, err := a.Create(FileSpec{Path: p, Mtime: mtime0})
	require.NoError(t, err)
	for off := 0; off < len(data); {
		n := min(len(data)-off, 300_001)
		_, err := w.Write(data[off : off+n])
		require.NoError(t, err)
		off += n
	}
	m, err := w.Commit()
	require.NoError(t, err)
	return m
}

func getFile(a *Array, p string) ([]byte, error) {
	r, err := a.OpenFile(p, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func memArray(t testing.TB, level Level, n int, su int64) (*memBlades, []string, *Array) {
	t.Helper()
	mb, dirs := newMemBlades(n)
	a, err := CreateFS(dirs, CreateOptions{Level: level, StripeUnit: su, Label: "test"}, mb.fs)
	require.NoError(t, err)
	return mb, dirs, a
}

func dirArray(t testing.TB, level Level, n int, su int64) ([]string, *Array) {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i := 0; i < n; i++ {
		d := filepath.Join(root, "blade"+string(rune('A'+i)))
		require.NoError(t, os.Mkdir(d, 0o755))
		dirs = append(dirs, d)
	}
	a, err := Create(dirs, CreateOptions{Level: level, StripeUnit: su, Label: "test"})
	require.NoError(t, err)
	return dirs, a
}

// chunkBytes reads a raw chunk of a file from the blade holding position pos.
func chunkBytes(t testing.TB, a *Array, m *Manifest, pos int) []byte {
	t.Helper()
	role := m.layout().K
	if pos < m.Layout.K {
		role = m.layout().Role(pos)
	}
	data, err := readFile(a.blades[role].fs, chunkName(m.FileID, pos, m.Layout.K))
	require.NoError(t, err)
	return data
}

func chunkPath(dirs []string, m *Manifest, pos int) string {
	role := m.Layout.K
	if pos < m.Layout.K {
		role = m.layout().Role(pos)
	}
	return filepath.Join(dirs[role], filepath.FromSlash(chunkName(m.FileID, pos, m.Layout.K)))
}

// checkLayout verifies chunk lengths, parity and unit hashes independently
// of the writer.
func checkLayout(t testing.TB, a *Array, m *Manifest, data []byte) {
	t.Helper()
	ly := m.layout()
	k := ly.K
	chunks := make([][]byte, k)
	for j := 0; j < k; j++ {
		chunks[j] = chunkBytes(t, a, m, j)
		require.Equal(t, ly.ChunkLen(j), int64(len(chunks[j])), "L_%d", j)
		// Data of position j: every stripe's unit j, concatenated.
		var want []byte
		for s := int64(0); s < ly.Stripes(); s++ {
			lo := ly.UnitStart(s, j)
			hi := min(lo+ly.SU, int64(len(data)))
			if lo < hi {
				want = append(want, data[lo:hi]...)
			}
		}
		require.True(t, bytes.Equal(want, chunks[j]), "chunk %d content", j)
	}
	for s := int64(0); s < ly.Stripes(); s++ {
		for j := 0; j < k; j++ {
			u := chunks[j][s*ly.SU : s*ly.SU+ly.UnitLen(s, j)]
			if len(u) > 0 {
				require.Equal(t, xxh3.Hash128(u).Bytes(), m.UnitHash(s, j))
			}
		}
	}
	if a.sb.ParityBlades == 1 {
		p := chunkBytes(t, a, m, k)
		require.Equal(t, ly.ParityLen(), int64(len(p)))
		x := make([]byte, len(p))
		for j := 0; j < k; j++ {
			subtle.XORBytes(x[:len(chunks[j])], x[:len(chunks[j])], chunks[j])
		}
		require.True(t, bytes.Equal(x, p), "parity = XOR of the data chunks")
		for s := int64(0); s < ly.Stripes(); s++ {
			require.Equal(t, xxh3.Hash128(p[s*ly.SU:s*ly.SU+ly.UnitLen(s, 0)]).Bytes(), m.UnitHash(s, k))
		}
	}
}
