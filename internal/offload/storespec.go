package offload

import "github.com/dit-org/dit/internal/offload/dest"

// RemoteReason is what a [RemoteRefusal] refuses, for a front end that
// says it in its own words (dit-gui names its form's controls, not the
// flags).
type RemoteReason int

const (
	// RemoteBadDest: a destination not written rclone:REMOTE:PATH.
	RemoteBadDest RemoteReason = iota + 1
	// RemoteBesideThen: a cloud destination beside second-run folders.
	RemoteBesideThen
	// RemoteNoReadBack: a cloud destination with --verify none.
	RemoteNoReadBack
)

// RemoteRefusal is a refusal of [CheckRemoteDests]: a [UsageError] (its
// message names the flags, errors.As finds the UsageError) with its
// reason.
type RemoteRefusal struct {
	Reason RemoteReason
	err    *UsageError
}

func (e *RemoteRefusal) Error() string { return e.err.Error() }
func (e *RemoteRefusal) Unwrap() error { return e.err }

func cloudRefusal(r RemoteReason, err error) error {
	return &RemoteRefusal{Reason: r, err: err.(*UsageError)}
}

// The rule of a job's cloud destinations, as written: what dit refuses
// with them and where each one goes. A pure function of the destinations
// and the verify mode, so that a front end can say it before a job
// starts (dit-gui's Offload form, through internal/assembly) with the
// engine's own words: New and Check apply it (splitStores).

// CheckRemoteDests refuses what dit cannot do with the cloud destinations
// (rclone:REMOTE:PATH) among dests (first run, -d) and then (second run,
// --then): one that is not written rclone:REMOTE:PATH, a cloud
// destination beside --then folders, a cloud destination with
// --verify none. Each refusal is a [RemoteRefusal] saying what to do; nil
// when the job has no cloud destination or dit can do what it asks.
// It reads nothing (no rclone, no file).
func CheckRemoteDests(dests, then []string, verify VerifyMode) error {
	var clouds []string
	for _, d := range dests {
		if dest.IsRemote(d) {
			clouds = append(clouds, d)
		}
	}
	thenCloud := 0
	for _, d := range then {
		if dest.IsRemote(d) {
			thenCloud++
		}
	}
	if len(clouds) == 0 && thenCloud == 0 {
		return nil
	}
	for _, d := range append(append([]string(nil), clouds...), then...) {
		if dest.IsRemote(d) {
			if err := dest.ParseRemote(d); err != nil {
				return cloudRefusal(RemoteBadDest, usageErrorf("%v", err))
			}
		}
	}
	if len(clouds) > 0 && len(then) > 0 || thenCloud > 0 && thenCloud < len(then) {
		return cloudRefusal(RemoteBesideThen, usageErrorf("a cloud destination (rclone:...) and --then folders in one job: give the cloud destinations alone with --then (or -d), and the shuttles in another job"))
	}
	if verify == VerifyNone {
		return cloudRefusal(RemoteNoReadBack, usageErrorf("a cloud destination with --verify none: dit counts a cloud copy only once the storage's checksum (or a read-back) matches the card; use --verify dest (default)"))
	}
	return nil
}

// RemoteRuns are the runs the engine gives the destinations of a job that
// CheckRemoteDests accepts: a cloud destination given in the first run
// beside a folder or array destination is uploaded in the cascade's
// second run, from the verified first copy on first[0] (moved lists
// those); first and then are the engine's Options.Dests and Options.Then.
// A job whose first-run destinations are all cloud ones keeps them there:
// each card is streamed to them from its one read.
func RemoteRuns(dests, then []string) (first, second, moved []string) {
	var local, clouds []string
	for _, d := range dests {
		if dest.IsRemote(d) {
			clouds = append(clouds, d)
		} else {
			local = append(local, d)
		}
	}
	if len(clouds) > 0 && len(local) > 0 && len(then) == 0 {
		return local, clouds, clouds
	}
	return dests, then, nil
}
