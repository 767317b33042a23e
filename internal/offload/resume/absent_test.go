package resume

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/earlier"
)

// An absent card's copy is trusted as it is when its identity is the
// one read back; read again when nothing vouches for it, its new identity
// then recorded; withdrawn, naming both hashes, when its bytes differ;
// and withdrawn when it is gone or not the file verified.
func TestRecheckAbsentCopy(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "A001C001.mov")
	body := []byte("the card's bytes, verified")
	require.NoError(t, os.WriteFile(p, body, 0o644))
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	f := &catalog.File{Rel: "A001C001.mov", Size: int64(len(body)), State: "verified", Sums: hashing.Bytes(algos, body)}
	mh := hashing.NewMulti(algos, 2)
	defer mh.Close()
	bufs := [][]byte{make([]byte, 8), make([]byte, 8)}
	check := func(cp *catalog.Copy, died bool) Recheck {
		return RecheckCopy(context.Background(), AbsentCopy{FS: fsys.OS{}, Path: p, Shown: "/raid/day01/A001/A001C001.mov", File: f, Copy: cp, PrevRunDied: died}, bufs, mh)
	}
	cp := &catalog.Copy{State: "verified", Identity: fsys.Identity(fi)}
	require.True(t, Rechecks(f, cp))
	require.Equal(t, Recheck{}, check(cp, true), "vouched for: not read")

	r := check(&catalog.Copy{State: "verified"}, true)
	require.Equal(t, earlier.Unvouched, r.Reread)
	require.Empty(t, r.Withdrawn)
	require.Equal(t, fsys.Identity(fi), r.Identity, "read again, the same bytes: now the file verified")
	require.Equal(t, Recheck{}, check(&catalog.Copy{State: "verified"}, false), "a run that ended well vouches")

	other := []byte("the card's bytes, verifieD")
	require.NoError(t, os.WriteFile(p, other, 0o644))
	require.NoError(t, os.Chtimes(p, time.Now(), fi.ModTime().Add(time.Second)))
	r = check(cp, false)
	require.Equal(t, earlier.Changed, r.Reread)
	got := hashing.Bytes(algos, other)
	require.Contains(t, r.Withdrawn, "the copy /raid/day01/A001/A001C001.mov differs from the card (found by the resume)")
	require.Contains(t, r.Withdrawn, f.Sums.Get(hashing.MD5)+" read from the card, "+got.Get(hashing.MD5)+" from the copy")
	require.Empty(t, r.Identity)

	require.NoError(t, os.WriteFile(p, body[:5], 0o644))
	require.Contains(t, check(cp, false).Withdrawn, "is not the file that was verified (found by the resume: 5 bytes, the card's file 26)")
	require.NoError(t, os.Remove(p))
	require.Contains(t, check(cp, false).Withdrawn, "the copy /raid/day01/A001/A001C001.mov is gone")

	require.False(t, Rechecks(&catalog.File{Rel: earlier.ChainRel, State: "verified"}, cp), "the chain the seal extends")
	require.False(t, Rechecks(f, &catalog.Copy{State: "failed"}))
}

// The warning of an absent card: not needed; in a cascade, free; with
// copies found bad since, NOT free, to be mounted again.
func TestAbsentNotice(t *testing.T) {
	a := Absent{Label: "A001", Path: "/Volumes/A001", JobID: 3}
	require.Equal(t, "card A001 is not mounted at /Volumes/A001: it was verified, so this resume does not need it", a.Notice())
	a.Cascade = true
	require.Contains(t, a.Notice(), "it is free (verified on the first destinations), so this resume does not need it; the second run reads its first copy")
	a.Bad, a.Found = 3, 2
	require.Equal(t, "card A001 is not mounted at /Volumes/A001: 3 of its copies were found bad after it was verified (2 of them by this resume, which read them again) (see dit job show 3): it is NOT free; keep it, mount it and resume to copy them again", a.Notice())
}

// A resume restores where the job copies as recorded: the first-run
// cards (not a second run's row), and each run's destinations in order.
func TestRecordedPaths(t *testing.T) {
	cards := []*catalog.Card{{Path: "/Volumes/A001", Hop: 1}, {Path: "/raid/day01/A001", Hop: 2}, {Path: "/Volumes/B001"}}
	dests := []*catalog.Dest{{Path: "/raid"}, {Path: "/shuttle", Hop: 2}, {Path: "/backup", Hop: 1}}
	require.Equal(t, Recorded{Cards: []string{"/Volumes/A001", "/Volumes/B001"}, Dests: []string{"/raid", "/backup"}, Then: []string{"/shuttle"}},
		RecordedPaths(cards, dests))
}

// A resume scans a card again, leaves a verified card that is not
// mounted (not needed), and reads a second run from the first copy.
func TestTakeup(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "A002")
	require.Equal(t, Rescan, TakeupOf(&catalog.Card{Path: dir, State: "verified"}, Mounted))
	require.Equal(t, NotMounted, TakeupOf(&catalog.Card{Path: gone, State: "verified"}, Mounted))
	require.Equal(t, Rescan, TakeupOf(&catalog.Card{Path: gone, State: "interrupted"}, Mounted), "needed: its scan says it is gone")
	require.Equal(t, SecondRun, TakeupOf(&catalog.Card{Path: gone, State: "verified", Hop: 2}, Mounted))

	require.NoError(t, DestThere(dir, 4))
	require.EqualError(t, DestThere(gone, 4), "destination "+gone+" of job 4 is not there: mount it at the same path and resume again")
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.Error(t, DestThere(file, 4), "not a folder")
}
