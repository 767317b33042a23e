package resume

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/earlier"
	"github.com/dit-org/dit/internal/offload/summary"
)

// A resume does not need a card that was verified and is not mounted
// (an absent card): it has gone back to the camera, or, in a cascade,
// it is free and the second run reads its first copy. Its copies are
// still what its verdict rests on: one that is not the file that was
// read back (its identity changed since, or nothing vouches for it after
// a run that died: earlier.Vouch) is read again from its medium and
// compared with the card's hashes, as a mounted card's copy would be. A
// copy that differs, or is gone, has its verdict withdrawn (the pipeline
// records it: catalog.FailCopy): the card is neither free nor safe to
// format, and the words say to keep it. Copies on remotes have no
// identity to compare: dit verify reads them.

// Rechecks reports whether copy cp of file f, of an absent card, is one
// a resume checks: a verified copy of a verified file, but the card's
// ASC MHL chain, whose copies the seal extends by design (checking it
// needs the card).
func Rechecks(f *catalog.File, cp *catalog.Copy) bool {
	return f.State == summary.StateVerified && f.Rel != earlier.ChainRel && cp.State == summary.StateVerified
}

// An AbsentCopy is one copy of an absent card's file to check.
type AbsentCopy struct {
	FS fsys.FS
	// Path is the copy's path, Shown the same as a person opens it
	// (dest.DisplayPath).
	Path, Shown string
	File        *catalog.File
	Copy        *catalog.Copy
	// PrevRunDied: the job's previous run ended without saying so
	// (earlier.Vouch).
	PrevRunDied bool
}

// A Recheck is what the check of an absent card's copy found.
type Recheck struct {
	// Withdrawn is why the copy's verdict is withdrawn ("" it stands).
	Withdrawn string
	// Reread is why the copy was read again (earlier.Trusted: it was
	// vouched for, not read).
	Reread earlier.Why
	// Identity, when set, is the copy's identity now, to record: it was
	// read again, has the card's bytes, and is now the file verified.
	Identity string
}

// RecheckCopy checks copy a: it stands when it is vouched for, or read
// again (bufs, mh: the verification's buffers and hashers) and equal to
// the card's hashes; it is withdrawn, and the words say why, when it is
// gone, not the file verified, unreadable or different (both hashes
// named). An interrupted read (ctx) withdraws nothing.
func RecheckCopy(ctx context.Context, a AbsentCopy, bufs [][]byte, mh *hashing.Multi) Recheck {
	f, shown := a.File, a.Shown
	fi, err := a.FS.Lstat(a.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Recheck{Withdrawn: fmt.Sprintf("the copy %s is gone (found by the resume): it was verified, and is no longer there; keep the card and copy it again", shown)}
	case err != nil:
		return Recheck{Withdrawn: fmt.Sprintf("the copy %s cannot be checked (found by the resume): %v; keep the card", shown, err)}
	case !fi.Mode().IsRegular() || fi.Size() != f.Size:
		return Recheck{Withdrawn: fmt.Sprintf("the copy %s is not the file that was verified (found by the resume: %d bytes, the card's file %d); keep the card and copy it again", shown, fi.Size(), f.Size)}
	}
	why := earlier.Vouch(a.Copy, fi, a.PrevRunDied)
	if why == earlier.Trusted {
		return Recheck{}
	}
	r := Recheck{Reread: why}
	got, n, err := dest.HashFile(ctx, a.FS, a.Path, f.Size, bufs, mh, nil, func(int) {})
	if ctx.Err() != nil {
		return r
	}
	switch {
	case err != nil:
		r.Withdrawn = fmt.Sprintf("the copy %s cannot be read again (found by the resume): %v; keep the card and copy it again", shown, err)
		return r
	case n != f.Size:
		r.Withdrawn = fmt.Sprintf("the copy %s gave %d bytes of %d when read again (found by the resume); keep the card and copy it again", shown, n, f.Size)
		return r
	}
	if _, alg, ok := got.Compare(f.Sums); !ok {
		r.Withdrawn = fmt.Sprintf("the copy %s differs from the card (found by the resume): %s %s read from the card, %s from the copy: it changed since it was verified; keep the card and copy it again",
			shown, alg, f.Sums.Get(alg), got.Get(alg))
		return r
	}
	// The same bytes: this file is now the one verified.
	if after, err := a.FS.Lstat(a.Path); err == nil {
		if id := fsys.Identity(after); id == fsys.Identity(fi) {
			r.Identity = id
		}
	}
	return r
}

// An Absent is a verified card that a resume finds not mounted.
type Absent struct {
	Label, Path string
	// DoneAt is when it was verified (zero: not known).
	DoneAt time.Time
	// Cascade: the job has a second run, which reads the card's first
	// copy.
	Cascade bool
	// Bad counts its copies found bad since it was verified (by dit
	// verify, a second run, this resume); Found of them by this resume.
	Bad, Found int
	JobID      int64
}

// Notice is the warning a resume gives of absent card a: it is not
// needed; or, when copies of it were found bad since it was verified, it
// is not free and must be mounted again.
func (a Absent) Notice() string {
	at := ""
	if !a.DoneAt.IsZero() {
		at = " at " + a.DoneAt.Local().Format("15:04:05")
	}
	if a.Bad > 0 {
		// Only the card can make a copy found bad whole again.
		now := ""
		if a.Found > 0 {
			now = fmt.Sprintf(" (%d of them by this resume, which read them again)", a.Found)
		}
		return fmt.Sprintf("card %s is not mounted at %s: %d of its copies were found bad after it was verified%s (see dit job show %d): it is NOT free; keep it, mount it and resume to copy them again",
			a.Label, a.Path, a.Bad, now, a.JobID)
	}
	if a.Cascade {
		return fmt.Sprintf("card %s is not mounted at %s: it is free (verified on the first destinations%s), so this resume does not need it; the second run reads its first copy",
			a.Label, a.Path, at)
	}
	return fmt.Sprintf("card %s is not mounted at %s: it was verified%s, so this resume does not need it", a.Label, a.Path, at)
}
