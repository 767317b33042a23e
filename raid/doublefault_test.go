package raid

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// flipChunkByte flips byte off of the chunk file at p.
func flipChunkByte(t *testing.T, p string, off int64) {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[off] ^= 0x40
	require.NoError(t, os.WriteFile(p, b, 0o644))
}

// RAID 4 with the parity blade gone and a data unit bad: the read fails,
// and that is recorded before the read returns (the health record on the
// present blades says damaged, naming the file), so a later open says
// damaged without a scrub. When the parity blade is back, the same record
// says degraded: parity makes up for the bad unit again.
func TestReadDoubleFaultRecordedAtOnce(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	data := randBytes(500_000, 11)
	m := putFile(t, a, "A001/C001.mov", data)
	other := randBytes(150_000, 12)
	putFile(t, a, "A001/C002.mov", other)
	require.NoError(t, a.Close())

	parity := dirs[3] + "-away"
	require.NoError(t, os.Rename(dirs[3], parity))
	flipChunkByte(t, chunkPath(dirs, m, 0), 100) // stripe 0, position 0

	ro, err := Open(dirs[:1], OpenOptions{})
	require.NoError(t, err)
	require.Equal(t, "degraded", ro.Health().State, "nothing read yet: only the parity blade is missing")
	r, err := ro.OpenFile(m.Path, true)
	require.NoError(t, err)
	buf := make([]byte, 1000)
	_, err = r.Read(buf)
	require.ErrorIs(t, err, ErrUnreadable)
	require.Contains(t, err.Error(), "blade role 3 is not available")

	// Before Close: another open (another process) sees it already.
	h := openHealth(t, dirs[:1])
	require.Equal(t, "damaged", h.State)
	require.Equal(t, []string{m.Path}, h.Unreadable)
	require.Len(t, h.Damaged, 1)
	require.Equal(t, DamageUnreadable, h.Damaged[0].State)
	require.Equal(t, []int{m.layout().Role(0)}, h.Damaged[0].Roles)
	require.Equal(t, []string{"A001/C002.mov"}, h.Unprotected, "the damaged file is unreadable, the other one lacks parity")
	require.NoError(t, r.Close())
	got, err := getFile(ro, "A001/C002.mov")
	require.NoError(t, err, "the other file reads")
	require.True(t, bytes.Equal(other, got))
	require.NoError(t, ro.Close())

	// The parity blade back: the bad unit reads through parity.
	require.NoError(t, os.Rename(parity, dirs[3]))
	h = openHealth(t, dirs[:1])
	require.Equal(t, "degraded", h.State)
	require.Equal(t, []string{m.Path}, h.Unprotected)
	require.Empty(t, h.Unreadable)
	ro, err = Open(dirs[:1], OpenOptions{})
	require.NoError(t, err)
	got, err = getFile(ro, m.Path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	require.NoError(t, ro.Close())
}

// A unit a scrub found bad while every blade was there (degraded: parity
// makes up for it) cannot be read once the parity blade is gone: the
// record's units are judged with the members present now.
func TestHealthDamagedWhenParityGoesAfterScrub(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 3, 64<<10)
	m := putFile(t, a, "A001/C001.mov", randBytes(300_000, 13))
	require.NoError(t, a.Close())
	flipChunkByte(t, chunkPath(dirs, m, 1), 70_000) // stripe 1, position 1

	ro, err := Open(dirs[:1], OpenOptions{})
	require.NoError(t, err)
	rep, err := ro.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.Len(t, rep.Issues, 1)
	require.Equal(t, IssueDataUnit, rep.Issues[0].Kind)
	require.NoError(t, ro.Close())
	require.Equal(t, "degraded", openHealth(t, dirs[:1]).State)

	require.NoError(t, os.RemoveAll(filepath.Join(dirs[2], Dir)))
	h := openHealth(t, dirs[:1])
	require.Equal(t, "damaged", h.State)
	require.Equal(t, []string{m.Path}, h.Unreadable)

	// Only a role with a unit in the bad unit's stripe counts: a file of
	// 150,000 bytes over 2 data blades (64 KiB units) has no unit on
	// position 1 in its stripe 1, but every stripe has a parity unit.
	ly := Layout{K: 2, SU: 64 << 10, Start: 0, Size: 150_000}
	u := BadUnit{Stripe: 1, Position: 0, Role: 0, Kind: IssueDataUnit}
	require.False(t, stripeLacks(ly, u, []int{1}), "stripe 1 has no unit on role 1")
	require.True(t, stripeLacks(ly, u, []int{2}), "stripe 1 has a parity unit")
	require.True(t, stripeLacks(ly, BadUnit{Stripe: 0, Role: 0, Kind: IssueDataUnit}, []int{1}))
	require.False(t, stripeLacks(ly, BadUnit{Stripe: 0, Role: 1, Kind: IssueDataUnit}, []int{1}), "its own role")
}

func openHealth(t *testing.T, dirs []string) Health {
	t.Helper()
	a, err := Open(dirs, OpenOptions{})
	require.NoError(t, err)
	defer a.Close()
	return a.Health()
}
