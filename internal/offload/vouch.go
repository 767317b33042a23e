package offload

import (
	"io/fs"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// Why a resume reads again a copy an earlier run verified (its size and
// time unchanged), rather than trusting it.
type recheckWhy int

const (
	recheckNone recheckWhy = iota
	// recheckChanged: the copy is not the file that was verified: its
	// identity (device, inode, size, times: fsys.Identity) changed since,
	// or changed while it was read back.
	recheckChanged
	// recheckUnvouched: verified by a run that died (killed, crashed)
	// with no identity recorded (a dit before identities, or a medium
	// that gives none: Windows): nothing but size and time says the
	// copy is still the one read back.
	recheckUnvouched
	recheckKinds
)

// vouch says whether copy prev, verified by an earlier run of the job
// and found with the size and time it had (fi), can be trusted as it is
// (recheckNone), or why it is read again.
func (j *Job) vouch(prev *catalog.Copy, fi fs.FileInfo) recheckWhy {
	id := prev.Identity
	switch {
	case strings.HasPrefix(id, "~"):
		return recheckChanged
	case id != "":
		if now := fsys.Identity(fi); now != id {
			return recheckChanged
		}
		return recheckNone
	case j.prevRunDied:
		return recheckUnvouched
	}
	return recheckNone
}

// resumeNote sums the cards' rechecks and bytes not read again (nil when
// the job is not a resume).
func (j *Job) resumeNote() *ResumeNote {
	if !j.resume {
		return nil
	}
	n := &ResumeNote{}
	for _, c := range j.cardList() {
		n.Changed += c.rechecks[recheckChanged]
		n.Unvouched += c.rechecks[recheckUnvouched]
		n.NotReread += c.notReread.Load()
		n.NotRereadFiles += c.notRereadFiles.Load()
	}
	return n
}
