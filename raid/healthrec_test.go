package raid

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHealthRecordEncodeDecode(t *testing.T) {
	h := &HealthRecord{Magic: healthMagic, Format: 1, ArrayUUID: newID(), Seq: 7, Updated: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC),
		Files: []FileDamage{{FileID: newID(), Path: "A001/C001.mov", State: DamageUnreadable, FoundBy: "scrub",
			Units: []BadUnit{{Stripe: 2, Position: 0, Role: 1, Kind: IssueUnrecoverable, From: 100, To: 200}}}}}
	data := encodeHealth(h)
	require.True(t, bytes.HasSuffix(data[:len(data)-9], []byte("\ncrc32c=")))
	got, err := decodeHealth(data)
	require.NoError(t, err)
	require.Equal(t, h, got)
	// Any flipped byte, a truncation, a foreign magic or state is refused.
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x01
		_, err := decodeHealth(bad)
		require.Error(t, err, "byte %d flipped", i)
	}
	for _, n := range []int{0, 1, len(data) / 2, len(data) - 1} {
		_, err := decodeHealth(data[:n])
		require.True(t, errors.Is(err, errCorrupt), "truncated to %d", n)
	}
	for _, mut := range []func(*HealthRecord){
		func(h *HealthRecord) { h.Magic = "DIT-ARRAY-SB" },
		func(h *HealthRecord) { h.Format = 2 },
		func(h *HealthRecord) { h.Files[0].State = "fine" },
	} {
		c := *h
		c.Files = append([]FileDamage(nil), h.Files...)
		mut(&c)
		_, err := decodeHealth(encodeHealth(&c))
		require.True(t, errors.Is(err, errCorrupt))
	}
}

// corruptUnit flips a byte of unit (s, pos) of m on its blade.
func corruptUnit(t *testing.T, a *Array, m *Manifest, s int64, pos int) {
	t.Helper()
	ly := m.layout()
	role := ly.K
	if pos < ly.K {
		role = ly.Role(pos)
	}
	f, err := a.blades[role].fs.OpenFile(chunkName(m.FileID, pos, ly.K), os.O_RDWR, 0)
	require.NoError(t, err)
	b := make([]byte, 1)
	_, err = f.ReadAt(b, s*ly.SU+10)
	require.NoError(t, err)
	b[0] ^= 0x40
	_, err = f.WriteAt(b, s*ly.SU+10)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
}

// A scrub's findings are recorded with the array: a later open (another
// process) reports them; a read records what it finds; scrub --repair
// clears what it repaired; two bad units in a stripe make the file
// damaged, named in Unreadable.
func TestHealthRecordFromScrubAndRead(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 4, 64<<10)
	data := randBytes(700_000, 3)
	m := putFile(t, a, "A001/C001.mov", data)
	putFile(t, a, "A001/C002.mov", randBytes(90_000, 4))
	require.NoError(t, a.Close())
	ro := func() *Array {
		r, err := Open(dirs, OpenOptions{FS: mb.fs})
		require.NoError(t, err)
		return r
	}
	a = ro()
	corruptUnit(t, a, m, 1, 0)
	require.Equal(t, "healthy", a.Health().State, "nothing read yet")
	got, err := getFile(a, m.Path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	h := ro().Health()
	require.Equal(t, "degraded", h.State, "the read recorded the unit it rebuilt")
	require.Equal(t, 1, h.DamagedUnits)
	require.Equal(t, []string{m.Path}, h.Unprotected)

	corruptUnit(t, a, m, 2, 1)
	rep, err := a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.Len(t, rep.Issues, 2)
	h = ro().Health()
	require.Equal(t, "degraded", h.State)
	require.Equal(t, 2, h.DamagedUnits)
	require.Len(t, h.Damaged, 1)
	require.Equal(t, "scrub", h.Damaged[0].FoundBy)

	// A second bad unit in stripe 1: unreadable.
	corruptUnit(t, a, m, 1, 2)
	_, err = getFile(a, m.Path)
	require.ErrorIs(t, err, ErrUnreadable)
	h = ro().Health()
	require.Equal(t, "damaged", h.State)
	require.Equal(t, []string{m.Path}, h.Unreadable)
	_, err = a.Scrub(false, nil, nil)
	require.NoError(t, err)
	h = ro().Health()
	require.Equal(t, "damaged", h.State)
	require.Equal(t, 3, h.DamagedUnits, "stripe 1: two units; stripe 2: one")
	a.Close()

	// Repair: stripe 2 is fixed, stripe 1 stays damaged.
	rw, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
	require.NoError(t, err)
	rep, err = rw.Scrub(true, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Repaired)
	require.Equal(t, "damaged", rw.Health().State)
	require.NoError(t, rw.Close())
	h = ro().Health()
	require.Equal(t, "damaged", h.State)
	require.Equal(t, 2, h.DamagedUnits)
	// The file is written again (rewritten in place by hand here: the
	// good bytes back) and a scrub finds it clean: healthy, record empty.
	a = ro()
	for _, pos := range []int{0, 2} {
		corruptUnit(t, a, m, 1, pos)
	}
	rep, err = a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
	h = ro().Health()
	require.Equal(t, "healthy", h.State)
	require.Zero(t, h.DamagedUnits)
	require.Empty(t, ro().healthRecord().Files)
}

// The record is published like every metadata file (tmp, fsync, rename,
// fsync dir): a crash at any operation of an update leaves every blade
// with the old or the new record, and the array opens and reads one.
func TestHealthRecordAtomicUpdate(t *testing.T) {
	for _, phase := range []string{"record", "clear"} {
		for i := 1; ; i++ {
			mb, dirs, a := memArray(t, RAID4, 3, 64<<10)
			m := putFile(t, a, "f.mov", randBytes(300_000, 9))
			require.NoError(t, a.Close())
			a, err := Open(dirs, OpenOptions{FS: mb.fs})
			require.NoError(t, err)
			corruptUnit(t, a, m, 1, 1)
			repair := false
			if phase == "clear" {
				_, err := a.Scrub(false, nil, nil)
				require.NoError(t, err)
				require.Equal(t, "degraded", a.Health().State)
				a.Close()
				a, err = Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
				require.NoError(t, err)
				repair = true
			}
			mb.w.mu.Lock()
			mb.w.crashAt, mb.w.ops = i, 0
			mb.w.mu.Unlock()
			a.Scrub(repair, nil, nil)
			crashed := mb.w.crashed
			mb.crash()
			ra, err := Open(dirs, OpenOptions{FS: mb.fs})
			require.NoError(t, err, "%s op %d: reopen", phase, i)
			h := ra.Health()
			require.Contains(t, []string{"healthy", "degraded"}, h.State, "%s op %d", phase, i)
			for r, b := range ra.blades {
				if data, err := readFile(b.fs, healthName); err == nil {
					_, err := decodeHealth(data)
					require.NoError(t, err, "%s op %d: blade %d holds a whole record", phase, i, r)
				}
			}
			if !crashed {
				want := map[string]string{"record": "degraded", "clear": "healthy"}[phase]
				require.Equal(t, want, h.State, "%s: the update that ran to its end", phase)
				require.Greater(t, i, 3)
				break
			}
		}
	}
}

// A replace rebuilds every chunk of the role from the others, each unit
// checked: the bad units recorded on that role are gone, and the array is
// healthy again.
func TestHealthRecordClearedByRebuild(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 4, 64<<10)
	m := putFile(t, a, "f.mov", randBytes(600_000, 5))
	require.NoError(t, a.Close())
	a, err := Open(dirs, OpenOptions{FS: mb.fs})
	require.NoError(t, err)
	ly := m.layout()
	onRole := func(r int) int { // a data position of m on role r
		for j := 0; j < ly.K; j++ {
			if ly.Role(j) == r {
				return j
			}
		}
		t.Fatalf("no position on role %d", r)
		return -1
	}
	corruptUnit(t, a, m, 0, onRole(1))
	corruptUnit(t, a, m, 2, onRole(1))
	_, err = a.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.Equal(t, "degraded", a.Health().State)
	require.Equal(t, 2, a.Health().DamagedUnits)
	a.Close()
	mb.hidden[dirs[1]] = true
	rw, err := Open([]string{dirs[0]}, OpenOptions{FS: mb.fs, ReadWrite: true, AllowDegraded: true})
	require.NoError(t, err)
	require.NoError(t, rw.Replace(1, "/mem/new1", nil))
	require.Equal(t, "healthy", rw.Health().State)
	require.Zero(t, rw.Health().DamagedUnits)
	require.NoError(t, rw.Close())
	ro, err := Open([]string{dirs[0]}, OpenOptions{FS: mb.fs})
	require.NoError(t, err)
	require.Equal(t, "healthy", ro.Health().State, "cleared on the blades")
	require.Empty(t, ro.healthRecord().Files)
}
