package assembly

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// Cloud destinations before a job: the engine's rule on them (what it
// refuses, where each one goes) asked by a front end while a job is set
// up, in the engine's words; and the storage's free space, asked of
// rclone when the job is prepared.

// checkClouds checks each cloud destination of the job with rclone
// before anything is recorded (cloud.Rclone.Check: the remote
// configured, a folder named that is there, not relative to the working
// folder): a new job's, or those a resumed job recorded. A destination
// refused as it is written or stands is a UsageError (the CLI exits 2,
// as for a destination folder that is not there); a remote that does
// not answer is an error as it is. The GUI's add-cloud check
// (CheckRemoteDest) says the same words.
func (p *Prepared) checkClouds(ctx context.Context) error {
	dests := append(append([]string(nil), p.Dests...), p.s.Then...)
	var rec *catalog.Job
	if p.s.Resume != 0 {
		ds, err := p.s.Catalog.Dests(p.s.Resume)
		if err != nil {
			return err
		}
		dests = nil
		for _, d := range ds {
			dests = append(dests, d.Path)
		}
		if rec, err = p.s.Catalog.Job(p.s.Resume); err != nil {
			return err
		}
	}
	// The job's rclone: on a resume, the configuration file and limit it
	// recorded (offload.JobSpec), as the engine will run it.
	r, err := jobRclone(p.s.Rclone, rec)
	if err != nil {
		return usage(err)
	}
	for _, d := range dests {
		cd, err := cloud.Parse(d)
		if err != nil {
			continue // not a cloud destination, or one the engine refuses in its words
		}
		if err := r.Check(ctx, cd); err != nil {
			if rec != nil {
				err = fmt.Errorf("job %d not resumed (left as it was): %w", rec.ID, err)
			}
			var de *cloud.DestError
			if errors.As(err, &de) {
				return usage(err)
			}
			return err
		}
	}
	return nil
}

// CheckRemoteDests refuses, as the engine will at the start
// (offload.CheckRemoteDests, the same rule and words), what dit cannot do
// with the cloud destinations among dests (first run) and then (second
// run) with the verify mode: one not written rclone:REMOTE:PATH, one
// beside second-run folders, one with no read-back. It reads nothing: a
// front end calls it whenever the form changes.
func CheckRemoteDests(dests, then []string, verify offload.VerifyMode) error {
	return offload.CheckRemoteDests(dests, then, verify)
}

// DestRuns are the destinations of each run as the engine will run
// them (offload.RemoteRuns): a cloud destination given in the first run
// beside a folder is in the second. A plan of the job plans these.
func DestRuns(dests, then []string) (first, second []string) {
	first, second, _ = offload.RemoteRuns(dests, then)
	return first, second
}

// RemoteRoutes says where the copy of each cloud destination among dests
// (first run, beside folders or alone) comes from, as the engine will
// run it (offload.RemoteRuns): one line per destination, or none. Cloud
// destinations in then are a cascade the front end describes as any.
func RemoteRoutes(dests, then []string) []string {
	first, _, moved := offload.RemoteRuns(dests, then)
	var out []string
	for _, d := range moved {
		out = append(out, fmt.Sprintf("%s is uploaded from %s's verified copy once the card is free (a second run: the card is not read for it); "+
			"the card is safe to format only when the cloud copy is verified too.", d, first[0]))
	}
	if len(moved) == 0 && len(then) == 0 && len(dests) > 0 && !slices.ContainsFunc(dests, func(d string) bool { return !cloud.IsDest(d) }) {
		for _, d := range dests {
			out = append(out, fmt.Sprintf("%s is streamed from the card as it is read (no copy on this machine); "+
				"the card is safe to format only when every object is verified in the cloud.", d))
		}
	}
	return out
}

// RemoteFree is the free space the storage of cloud destination d
// reports (rclone about with r; nil: rclone on PATH, the user's
// configuration), in bytes; -1 when it reports none (S3).
func RemoteFree(ctx context.Context, r *cloud.Rclone, d string) (int64, error) {
	cd, err := cloud.Parse(d)
	if err != nil {
		return -1, err
	}
	if r == nil {
		r = &cloud.Rclone{}
	}
	sp, err := r.About(ctx, cd)
	if err != nil || !sp.Known {
		return -1, err
	}
	return sp.Free, nil
}

// spaceAsker is what the free-space check asks (cloud.Rclone; tests give
// their own).
type spaceAsker interface {
	About(ctx context.Context, d cloud.Dest) (cloud.Space, error)
}

// RemoteSpaceNote is the note of a remote whose storage reports no free
// space (S3): the upload is not checked against it.
func RemoteSpaceNote(remote string) string {
	return fmt.Sprintf("free space of %s: unknown (the storage does not report it)", remote)
}

// checkCloudSpace asks each remote among dests for its free space once:
// need bytes go to each cloud destination (every card to copy), so a
// remote holding n of them needs n x need. A remote that reports less
// free space than that (plus the margin the engine keeps on a folder)
// refuses the job, as a folder too small does; one that reports none, or
// cannot be asked, is a note.
func checkCloudSpace(ctx context.Context, r spaceAsker, dests []string, need int64) (notes []string, err error) {
	var remotes []string
	count := map[string]int{}
	first := map[string]cloud.Dest{}
	for _, s := range dests {
		d, perr := cloud.Parse(s)
		if perr != nil {
			continue // refused by the engine's check, in its words
		}
		if count[d.Remote] == 0 {
			remotes = append(remotes, d.Remote)
			first[d.Remote] = d
		}
		count[d.Remote]++
	}
	for _, rm := range remotes {
		sp, aerr := r.About(ctx, first[rm])
		switch {
		case aerr != nil:
			notes = append(notes, fmt.Sprintf("free space of %s: unknown (%v)", rm, aerr))
			continue
		case !sp.Known:
			notes = append(notes, RemoteSpaceNote(rm))
			continue
		}
		n := need * int64(count[rm])
		if total := n + offload.SpaceMargin; total > sp.Free {
			return notes, fmt.Errorf("not enough space on %s (cloud destination %s): the upload needs %s and dit keeps a margin of %s: %s in all; "+
				"the storage reports %s free, %s short: free space on it or choose another destination",
				rm, first[rm], units.FormatBytes(n), units.FormatBytes(offload.SpaceMargin), units.FormatBytes(total),
				units.FormatBytes(sp.Free), units.FormatBytes(total-sp.Free))
		}
	}
	return notes, nil
}

// cloudSpaceTimeout bounds the asks of the remotes' free space: a remote
// that does not answer never holds a job back for long (the engine's
// own check of the remote refuses it, naming it).
const cloudSpaceTimeout = 30 * time.Second

// cloudSpace checks the remotes' free space against the cards to copy
// (a new job's, with a cloud destination).
func (p *Prepared) cloudSpace(ctx context.Context) error {
	all := append(append([]string(nil), p.Dests...), p.s.Then...)
	if !slices.ContainsFunc(all, cloud.IsDest) {
		return nil
	}
	var need int64
	for _, c := range p.Cards {
		sc, _, err := offload.ScanCard(p.s.FS, c, p.s.IncludeHidden, p.s.Ignore...)
		if err != nil {
			return nil // the engine refuses it, naming the card
		}
		need += sc.Bytes
	}
	var r spaceAsker = p.s.Rclone
	if p.s.Rclone == nil {
		r = &cloud.Rclone{}
	}
	ctx, cancel := context.WithTimeout(ctx, cloudSpaceTimeout)
	defer cancel()
	notes, err := checkCloudSpace(ctx, r, all, need)
	p.Notes = append(p.Notes, notes...)
	return err
}
