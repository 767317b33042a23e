package raid

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func flipByte(t *testing.T, p string, off int64) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	require.NoError(t, err)
	var b [1]byte
	_, err = f.ReadAt(b[:], off)
	require.NoError(t, err)
	b[0] ^= 0x20
	_, err = f.WriteAt(b[:], off)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func fileSum(t *testing.T, p string) [32]byte {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

func kinds(rep *ScrubReport) map[string]int {
	out := map[string]int{}
	for _, is := range rep.Issues {
		out[is.Kind]++
	}
	return out
}

// Fault test 8: a flipped byte in a data unit.
func TestBitFlipDataUnit(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	data := randBytes(1_000_000, 8)
	m := putFile(t, a, "A001/C001.mov", data)
	off := int64(64<<10 + 12345) // stripe 1 of position 1
	p := chunkPath(dirs, m, 1)
	flipByte(t, p, off)
	got, err := getFile(a, "A001/C001.mov")
	require.NoError(t, err, "the read is served from parity")
	require.True(t, bytes.Equal(data, got))
	repaired := false
	for _, ev := range a.Events() {
		repaired = repaired || ev.Kind == "repaired-on-read"
	}
	require.True(t, repaired, "a repair event is logged")
	rep, err := a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.Len(t, rep.Issues, 1)
	is := rep.Issues[0]
	require.Equal(t, IssueDataUnit, is.Kind)
	require.Equal(t, "A001/C001.mov", is.Path)
	require.Equal(t, int64(1), is.Stripe)
	require.Equal(t, 1, is.Position)
	require.Equal(t, dirs[m.layout().Role(1)], is.Blade)
	require.False(t, is.Repaired)
	rep, err = a.Scrub(true, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Issues[0].Repaired)
	rep, err = a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
	got, err = getFile(a, "A001/C001.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "whole file equals the source")
}

// Fault test 9: a flipped byte in the parity unit.
func TestBitFlipParityUnit(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	data := randBytes(900_000, 9)
	m := putFile(t, a, "C002.mov", data)
	flipByte(t, chunkPath(dirs, m, 3), 5)
	var sums [3][32]byte
	for j := 0; j < 3; j++ {
		sums[j] = fileSum(t, chunkPath(dirs, m, j))
	}
	got, err := getFile(a, "C002.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	for _, ev := range a.Events() {
		require.NotEqual(t, "repaired-on-read", ev.Kind, "healthy reads never touch parity")
	}
	rep, err := a.Scrub(true, nil, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{IssueParityUnit: 1}, kinds(rep))
	require.True(t, rep.Issues[0].Repaired)
	for j := 0; j < 3; j++ {
		require.Equal(t, sums[j], fileSum(t, chunkPath(dirs, m, j)), "data chunk %d untouched", j)
	}
	rep, _ = a.Scrub(false, nil, nil)
	require.True(t, rep.Clean())
}

// Fault test 10: two bad units in one stripe.
func TestTwoBadUnitsInOneStripe(t *testing.T) {
	for _, second := range []int{2, 3} { // data+data, data+parity
		dirs, a := dirArray(t, RAID4, 4, 64<<10)
		data := randBytes(1_000_000, 10)
		m := putFile(t, a, "C003.mov", data)
		flipByte(t, chunkPath(dirs, m, 0), 64<<10+1) // stripe 1
		flipByte(t, chunkPath(dirs, m, second), 64<<10+2)
		var sums [4][32]byte
		for j := 0; j < 4; j++ {
			sums[j] = fileSum(t, chunkPath(dirs, m, j))
		}
		rep, err := a.Scrub(true, nil, nil)
		require.NoError(t, err)
		require.Equal(t, map[string]int{IssueUnrecoverable: 1}, kinds(rep))
		is := rep.Issues[0]
		require.Equal(t, int64(1), is.Stripe)
		require.Equal(t, int64(3*64<<10), is.From)
		require.Equal(t, int64(6*64<<10-1), is.To)
		require.False(t, is.Repaired)
		require.Contains(t, rep.Damaged, "C003.mov")
		for j := 0; j < 4; j++ {
			require.Equal(t, sums[j], fileSum(t, chunkPath(dirs, m, j)), "repair wrote nothing")
		}
		r, err := a.OpenFile("C003.mov", true)
		require.NoError(t, err)
		buf := make([]byte, 1000)
		_, err = r.ReadAt(buf, 3*64<<10+10)
		require.ErrorIs(t, err, ErrUnreadable, "never wrong data")
		n, err := r.ReadAt(buf, 10) // stripe 0 verifies
		require.NoError(t, err)
		require.Equal(t, data[10:10+n], buf[:n])
		n, err = r.ReadAt(buf, 7*64<<10) // stripe 2 verifies
		require.NoError(t, err)
		require.Equal(t, data[7*64<<10:7*64<<10+n], buf[:n])
		r.Close()
		_, err = getFile(a, "C003.mov")
		require.ErrorIs(t, err, ErrUnreadable)
	}
}

// Fault test 11: truncated, deleted and swapped chunk files.
func TestTruncatedDeletedSwappedChunks(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	files := map[string][]byte{}
	ms := map[string]*Manifest{}
	for i, p := range []string{"trunc.mov", "deleted.mov", "swapA.mov", "swapB.mov"} {
		files[p] = randBytes(500_000, uint64(20+i))
		ms[p] = putFile(t, a, p, files[p])
	}
	// Truncate .d1 of one file by one byte.
	p := chunkPath(dirs, ms["trunc.mov"], 1)
	fi, _ := os.Stat(p)
	require.NoError(t, os.Truncate(p, fi.Size()-1))
	// Delete .d2 of another.
	require.NoError(t, os.Remove(chunkPath(dirs, ms["deleted.mov"], 2)))
	// Swap the .d0 chunks of two files of the same size (on the same blade
	// only if their rotation agrees; otherwise move across blades).
	pa, pb := chunkPath(dirs, ms["swapA.mov"], 0), chunkPath(dirs, ms["swapB.mov"], 0)
	ba, _ := os.ReadFile(pa)
	bb, _ := os.ReadFile(pb)
	require.NoError(t, os.WriteFile(pa, bb, 0o644))
	require.NoError(t, os.WriteFile(pb, ba, 0o644))
	for name, data := range files {
		got, err := getFile(a, name)
		require.NoError(t, err, name)
		require.True(t, bytes.Equal(data, got), "%s: swapped chunks are never served", name)
	}
	rep, err := a.Scrub(false, nil, nil)
	require.NoError(t, err)
	named := map[string]bool{}
	for _, is := range rep.Issues {
		named[is.Path] = true
	}
	require.Equal(t, map[string]bool{"trunc.mov": true, "deleted.mov": true, "swapA.mov": true, "swapB.mov": true}, named)
	k := kinds(rep)
	require.Equal(t, 2, k[IssueChunkSize], "truncated and missing chunk sizes")
	_, err = a.Scrub(true, nil, nil)
	require.NoError(t, err)
	rep, err = a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
}

// Fault test 12: EIO on a range of blade 1, and a 2 s delay on blade 2 (a data blade).
func TestReadEIOAndSlowBlade(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i := 0; i < 4; i++ {
		d := root + "/b" + string(rune('0'+i))
		require.NoError(t, os.Mkdir(d, 0o755))
		dirs = append(dirs, d)
	}
	a, err := Create(dirs, CreateOptions{Level: RAID4, StripeUnit: 64 << 10})
	require.NoError(t, err)
	data := randBytes(2_000_000, 12)
	putFile(t, a, "C004.mov", data)
	require.NoError(t, a.Close())
	faults := map[string]*faultFS{}
	mk := func(d string) BladeFS {
		f := newFaultFS(DirFS{Dir: d})
		faults[d] = f
		return f
	}
	ra, err := Open(dirs, OpenOptions{FS: mk, ReadDeadline: 300 * time.Millisecond})
	require.NoError(t, err)
	faults[dirs[1]].add(&fault{op: "read", match: "/chunks/", from: 64 << 10, to: 3 * 64 << 10, err: syscall.EIO})
	got, err := getFile(ra, "C004.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	require.Greater(t, ra.blades[1].errors.Load(), int64(0), "error counter increased")

	faults[dirs[1]].rules = nil
	faults[dirs[2]].add(&fault{op: "read", match: "/chunks/", delay: 2 * time.Second})
	r, err := ra.OpenFile("C004.mov", true)
	require.NoError(t, err)
	got, err = io.ReadAll(r)
	r.Close()
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	// The read did not wait for the slow blade: its deadline passed and the
	// units were rebuilt from parity (the counter, not a wall-clock
	// budget, says so).
	require.Greater(t, ra.blades[2].errors.Load(), int64(0), "the slow blade hit its deadline")
	ra.Close()
}
