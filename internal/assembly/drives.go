package assembly

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
)

// DriveCheck is what Prepare does with the destinations' drive health.
type DriveCheck int

const (
	// DrivesWarn names each destination drive (each blade of an array)
	// that reports problems in Prepared.Warnings; the job goes on.
	DrivesWarn DriveCheck = iota
	// DrivesRefuse refuses the job (a *DriveError) when one does.
	DrivesRefuse
	// DrivesOff asks no drive.
	DrivesOff
)

// driveTimeout bounds the whole check: a USB bridge that does not answer
// never holds a job back for long.
const driveTimeout = 8 * time.Second

// DriveError refuses a job whose destination drives report problems
// (Settings.Drives DrivesRefuse); no job is created.
type DriveError struct{ Problems []string }

func (e *DriveError) Error() string {
	return "destination drives report problems: " + strings.Join(e.Problems, "; ") +
		": replace them, or copy anyway with --drive-health warn"
}

// driveFolders are the folders whose drives a job writes: each
// destination, and each blade of a destination that is a dit array.
func driveFolders(dests []string) []string {
	var out []string
	for _, d := range dests {
		if cloud.IsDest(d) {
			continue // no drive of ours
		}
		if !raid.IsBlade(d) {
			out = append(out, d)
			continue
		}
		hints, err := raid.BladeHints(d)
		if err != nil {
			out = append(out, d)
			continue
		}
		for _, h := range hints {
			if h != "" {
				out = append(out, h)
			}
		}
	}
	return out
}

// checkDrives asks the drives of the job's destinations for their health
// (devices.SMART, all at once, bounded by driveTimeout) and returns one
// line per drive that reports problems. health is devices.HealthOf (tests
// give their own).
func checkDrives(ctx context.Context, dests []string, health func(ctx context.Context, vols []devices.Volume, path string) *devices.Health) []string {
	folders := driveFolders(dests)
	if len(folders) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, driveTimeout)
	defer cancel()
	vols, _ := devices.Discover(ctx)
	hs := make([]*devices.Health, len(folders))
	var wg sync.WaitGroup
	for i, f := range folders {
		wg.Go(func() { hs[i] = health(ctx, vols, f) })
	}
	wg.Wait()
	var out []string
	seen := map[string]bool{}
	for i, h := range hs {
		if h == nil || !h.Warn() || seen[h.Device] {
			continue
		}
		seen[h.Device] = true
		out = append(out, fmt.Sprintf("the drive of %s (%s %s) reports: %s", folders[i], h.Device,
			strings.TrimSpace(h.Model+" "+h.Serial), strings.Join(h.Problems, "; ")))
	}
	return out
}
