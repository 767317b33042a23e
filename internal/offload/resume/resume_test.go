package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

var algos = []hashing.Algo{hashing.MD5, hashing.XXH64}

const every = 4096

// clip is a file of three checkpoints' worth of bytes and a tail.
func clip() []byte {
	b := make([]byte, 3*every+1000)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func digest(b []byte) string { return fmt.Sprintf("%016x", xxh3.Hash(b)) }

// firstRun reads data as the first run does, a block of every bytes at
// a time, and returns the checkpoints it made (by offset): the prefix's
// digest and the card state in the catalog's text form.
func firstRun(t *testing.T, data []byte) (digests, states map[int64]string) {
	t.Helper()
	mh := hashing.NewMulti(algos, 4)
	defer mh.Close()
	cs := NewCardSide(every, hashing.AllMarshalable(algos))
	digests, states = map[int64]string{}, map[int64]string{}
	for off := 0; off < len(data); off += every {
		b := data[off:min(off+every, len(data))]
		require.Zero(t, cs.See(int64(off), b))
		mh.Write(b, nil)
		total := int64(off + len(b))
		if d, ck, ok := cs.Checkpoint(total, int64(len(data)), mh); ok {
			digests[total], states[total] = d, ck.Encoded()
		}
	}
	require.Equal(t, hashing.Bytes(algos, data), mh.Sum())
	return digests, states
}

// A checkpoint records the card's prefix digest and a card state that
// decodes to the span since the checkpoint before and hashers that, fed
// the rest of the file, give the file's hashes.
func TestCheckpointEncodesAndDecodes(t *testing.T) {
	data := clip()
	digests, states := firstRun(t, data)
	require.Len(t, digests, 3, "at 4096, 8192, 12288; none at the end")
	for at, d := range digests {
		require.Equal(t, digest(data[:at]), d)
		s, err := catalog.ParseCardState(states[at])
		require.NoError(t, err)
		require.Equal(t, at-every, s.SpanFrom)
		require.Equal(t, digest(data[s.SpanFrom:at]), s.Span)
		m := hashing.NewMulti(algos, 2)
		st := hashing.States{}
		for _, a := range algos {
			h, err := hashing.Unmarshal(a, s.Hashers[a])
			require.NoError(t, err)
			st[a] = h
		}
		m.Seed(st)
		m.Write(data[at:], nil)
		require.Equal(t, hashing.Bytes(algos, data), m.Sum(), "restored at %d", at)
		m.Close()
	}
	// Hashers that cannot save their state record no card state.
	var none *Checkpoint
	require.Empty(t, none.Encoded())
	mh := hashing.NewMulti([]hashing.Algo{hashing.XXH3}, 1)
	defer mh.Close()
	cs := NewCardSide(every, false)
	require.Zero(t, cs.See(0, data[:every]))
	mh.Write(data[:every], nil)
	d, ck, ok := cs.Checkpoint(every, int64(len(data)), mh)
	require.True(t, ok)
	require.Equal(t, digest(data[:every]), d)
	require.Empty(t, ck.Encoded())
}

// partial writes a kept temp of data's first 8192 bytes with its last
// two checkpoints, at 4096 and 8192.
func partial(t *testing.T, data []byte) (*catalog.Partial, string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), ".A001C001.mov.123.dit-tmp")
	require.NoError(t, os.WriteFile(tmp, data[:2*every], 0o644))
	return &catalog.Partial{Temp: tmp, Size: int64(len(data)), PrevOffset: every, PrevDigest: digest(data[:every]),
		Offset: 2 * every, Digest: digest(data[:2*every])}, tmp
}

func prove(t *testing.T, tmp string, q *catalog.Partial, read *int) Point {
	t.Helper()
	f, err := fsys.OS{}.OpenNoCache(tmp)
	require.NoError(t, err)
	defer f.Close()
	return Prove(context.Background(), f, q, Reading{Verify: algos, Block: make([]byte, 1000), Read: func(n int) { *read += n }})
}

// A kept temp is proved to its last checkpoint, its read-back hashers
// kept; a byte changed after the earlier checkpoint falls back to it; one
// changed before both proves nothing.
func TestProveFallsBackToTheEarlierPoint(t *testing.T) {
	data := clip()
	q, tmp := partial(t, data)
	read := 0
	pt := prove(t, tmp, q, &read)
	require.Equal(t, int64(2*every), pt.At)
	require.Equal(t, q.Digest, pt.Digest)
	require.Equal(t, 2*every, read, "the prefix read back once")
	require.NotNil(t, pt.Proof)
	fi, err := os.Stat(tmp)
	require.NoError(t, err)
	require.True(t, pt.Proof.Resumes(fi, algos))
	require.False(t, pt.Proof.Resumes(fi, []hashing.Algo{hashing.SHA1}), "no hasher of that algorithm kept")
	m := hashing.NewMulti(algos, 2)
	defer m.Close()
	m.Seed(pt.Proof.States)
	m.Write(data[2*every:], nil)
	require.Equal(t, hashing.Bytes(algos, data), m.Sum(), "the proof's hashers go on as one read-back of the whole copy")

	changed := append([]byte(nil), data[:2*every]...)
	changed[every+10] ^= 1
	require.NoError(t, os.WriteFile(tmp, changed, 0o644))
	pt = prove(t, tmp, q, &read)
	require.Equal(t, int64(every), pt.At, "the earlier point")
	require.Equal(t, q.PrevDigest, pt.Digest)
	require.NotNil(t, pt.Proof)
	require.Equal(t, int64(every), pt.Proof.At)

	changed[10] ^= 1
	require.NoError(t, os.WriteFile(tmp, changed, 0o644))
	pt = prove(t, tmp, q, &read)
	require.Zero(t, pt.At, "nothing proved: the copy starts over")
	require.Nil(t, pt.Proof)

	other, err := os.Stat(filepath.Join(filepath.Dir(tmp)))
	require.NoError(t, err)
	require.False(t, (&Proof{At: every, Info: fi, States: hashing.NewStates(algos)}).Resumes(other, algos), "another file")
}

// A resume read from the start checks the card's prefix at each copy's
// point: a card whose bytes changed under the same size and time fails
// at the point.
func TestSeeFromTheStart(t *testing.T) {
	data := clip()
	pts := []Point{{At: 2 * every, Digest: digest(data[:2*every])}, {At: every, Digest: digest(data[:every])}}
	cs := NewCardSide(every, false)
	cs.Resume(pts)
	require.Zero(t, cs.See(0, data[:3000]))
	require.Zero(t, cs.See(3000, data[3000:]))

	changed := append([]byte(nil), data...)
	changed[every+5] ^= 1
	cs = NewCardSide(every, false)
	cs.Resume(pts)
	require.Zero(t, cs.See(0, changed[:every]), "the first point still holds")
	require.Equal(t, int64(2*every), cs.See(every, changed[every:]))
}

// A resume whose copies all go on from a recorded card state reads the
// card from the lowest point's span on, its hashers restored: the file's
// hashes are those of a whole read; a change in the span read again
// fails at the point.
func TestFromTheMiddle(t *testing.T) {
	data := clip()
	digests, states := firstRun(t, data)
	card := filepath.Join(t.TempDir(), "A001C001.mov")
	require.NoError(t, os.WriteFile(card, data, 0o644))
	pts := []Point{{At: 2 * every, Digest: digests[2*every], State: states[2*every]}, {At: 3 * every, Digest: digests[3*every], State: states[3*every]}}

	run := func(card string, active []bool) (*CardSide, bool, int64, hashing.Sums) {
		f, err := fsys.OS{}.Open(card)
		require.NoError(t, err)
		defer f.Close()
		mh := hashing.NewMulti(algos, 4)
		defer mh.Close()
		cs := NewCardSide(every, true)
		cs.Resume(pts)
		moved, err := cs.FromTheMiddle(pts, active, f, algos, mh)
		require.NoError(t, err)
		rest, err := os.ReadFile(card)
		require.NoError(t, err)
		rest = rest[cs.Start():]
		if at := cs.See(cs.Start(), rest); at > 0 {
			return cs, moved, at, hashing.Sums{}
		}
		mh.Write(rest[cs.Feed()-cs.Start():], nil)
		return cs, moved, 0, mh.Sum()
	}
	cs, moved, failed, sums := run(card, []bool{true, true})
	require.True(t, moved)
	require.Equal(t, int64(every), cs.Start(), "the lowest point's span")
	require.Equal(t, int64(2*every), cs.Feed())
	require.Zero(t, failed)
	require.Equal(t, hashing.Bytes(algos, data), sums)

	changed := append([]byte(nil), data...)
	changed[2*every+7] ^= 1 // in the span of the point at 12288
	require.NoError(t, os.WriteFile(card, changed, 0o644))
	_, moved, failed, _ = run(card, []bool{true, true})
	require.True(t, moved)
	require.Equal(t, int64(3*every), failed)

	// A copy that starts over has the card read from the start.
	pts0 := append([]Point{{}}, pts...)
	f, err := fsys.OS{}.Open(card)
	require.NoError(t, err)
	defer f.Close()
	mh := hashing.NewMulti(algos, 1)
	defer mh.Close()
	cs = NewCardSide(every, true)
	cs.Resume(pts0)
	moved, err = cs.FromTheMiddle(pts0, []bool{true, true, true}, f, algos, mh)
	require.NoError(t, err)
	require.False(t, moved)
	require.Zero(t, cs.Start())
}
