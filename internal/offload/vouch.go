package offload

import (
	"io/fs"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload/earlier"
)

// recheckWhy is why a resume reads again a copy an earlier run verified
// (earlier.Why).
type recheckWhy = earlier.Why

const (
	recheckNone      = earlier.Trusted
	recheckChanged   = earlier.Changed
	recheckUnvouched = earlier.Unvouched
	recheckKinds     = earlier.Kinds
)

// vouch says whether copy prev, verified by an earlier run of the job
// and found with the size and time it had (fi), can be trusted as it is
// (recheckNone), or why it is read again (earlier.Vouch).
func (j *Job) vouch(prev *catalog.Copy, fi fs.FileInfo) recheckWhy {
	return earlier.Vouch(prev, fi, j.prevRunDied)
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
