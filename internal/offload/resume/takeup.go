package resume

import (
	"fmt"
	"os"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload/summary"
)

// A Takeup is how a resume takes up a recorded card row.
type Takeup int

const (
	// Rescan: the card is scanned again and what the job recorded of
	// it (files, checkpoints) taken up.
	Rescan Takeup = iota
	// NotMounted: a card verified before and not mounted now; the resume
	// does not need it (an absent card: its copies are checked, see
	// RecheckCopy).
	NotMounted
	// SecondRun: a cascade's second run, read from the first copy once
	// the job's arrays are open.
	SecondRun
)

// TakeupOf says how a resume takes up card row k; there reports whether
// a card's path is there now.
func TakeupOf(k *catalog.Card, there func(path string) bool) Takeup {
	switch {
	case k.Hop == 2:
		return SecondRun
	case k.State == summary.StateVerified && !there(k.Path):
		return NotMounted
	}
	return Rescan
}

// Mounted reports whether path is there (the there of TakeupOf).
func Mounted(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// DestThere is the error of a resume of job jobID whose folder
// destination path is not there (not a folder): it must be mounted at
// the same path. A remote destination is checked by its kind.
func DestThere(path string, jobID int64) error {
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return fmt.Errorf("destination %s of job %d is not there: mount it at the same path and resume again", path, jobID)
	}
	return nil
}
