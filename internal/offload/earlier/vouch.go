package earlier

import (
	"io/fs"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// Why says why a resume reads again a copy an earlier run verified (its
// size and time unchanged), rather than trusting it.
type Why int

const (
	// Trusted: the copy is the one read back (None of the reasons).
	Trusted Why = iota
	// Changed: the copy is not the file that was verified: its
	// identity (device, inode, size, times: fsys.Identity) changed since,
	// or changed while it was read back.
	Changed
	// Unvouched: verified by a run that died (killed, crashed)
	// with no identity recorded (a dit before identities, or a medium
	// that gives none: Windows): nothing but size and time says the
	// copy is still the one read back.
	Unvouched
	// Kinds counts the reasons (an array of counts per Why).
	Kinds
)

// Vouch says whether copy prev, verified by an earlier run of the job
// and found with the size and time it had (fi), can be trusted as it is
// (Trusted), or why it is read again. prevRunDied: the job's previous
// run ended without saying so (killed, crashed).
func Vouch(prev *catalog.Copy, fi fs.FileInfo, prevRunDied bool) Why {
	id := prev.Identity
	switch {
	case strings.HasPrefix(id, "~"):
		return Changed
	case id != "":
		if now := fsys.Identity(fi); now != id {
			return Changed
		}
		return Trusted
	case prevRunDied:
		return Unvouched
	}
	return Trusted
}
