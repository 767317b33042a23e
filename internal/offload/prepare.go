package offload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload/cascade"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// TempSuffix ends the name of every file dit is still writing. A temp is
// never mistaken for a copy; leftovers of a killed job are removed when a
// job writes to that card folder again.
const TempSuffix = ".dit-tmp"

// Job is a prepared offload: inputs checked, cards scanned, destinations
// locked, space checked and the job recorded in the catalog.
type Job struct {
	opts   Options
	cat    *catalog.Catalog
	rec    *catalog.Job
	cards  []*cardRun
	dests  []*destination
	locks  []*destLock
	algos  []hashing.Algo
	valgos []hashing.Algo
	arrays []*raid.Array

	jobResume
	jobRunning

	cardsMu sync.RWMutex // guards cards (and retired) once the job runs
	// retired are card runs replaced by RetryCard whose last bytes the
	// sampler has not recorded yet.
	retired []*cardRun

	// turns holds the second runs copying at once (ThenParallel).
	turns *cascade.Turns
	// model is the job's live model (package live), fed by the sampler.
	model atomic.Pointer[live.Model]

	warnMu   sync.Mutex
	warnings []string // for the summary: hash lists (seal)

	// plans: the files' plans the pipeline holds whole (planlist.go).
	plans planCount
}

// jobResume is what a Job knows of the runs before this one (all false
// and zero for a new job).
type jobResume struct {
	resume bool
	// prevRunDied: a resume whose job's last run did not end (killed,
	// crashed): the copies it verified without an identity are read again
	// (vouch).
	prevRunDied bool
	// wasDone: a resumed job that had finished (reports written); it
	// writes its reports again only if this run touched a card.
	wasDone bool
	// before: a resumed job's record as it was before this resume
	// claimed it; a resume of a done job that finds nothing to do puts it
	// back as it was (catalog.UndoRun).
	before catalog.Job
}

// jobRunning is a Job's run under way: its context, the cards running
// and whether it is wrapping up.
type jobRunning struct {
	runMu   sync.Mutex // guards runCtx, running, finishing
	runWG   sync.WaitGroup
	runCtx  context.Context
	running int
	// finishing: every card ended and Run is wrapping up; no card can be
	// added any more.
	finishing bool
}

type destination struct {
	root string // absolute -d folder
	rec  *catalog.Dest
}

// ID is the catalog id of the job.
func (j *Job) ID() int64 { return j.rec.ID }

// Name is the job's name.
func (j *Job) Name() string { return j.rec.Name }

// MHL is the job's hash-list choice (asc, v1, both or none), as recorded.
func (j *Job) MHL() string { return j.rec.MHL }

// Close releases the destination locks and closes arrays cleanly.
func (j *Job) Close() {
	for _, l := range j.locks {
		l.release()
	}
	j.locks = nil
	for _, a := range j.arrays {
		a.Close()
	}
	j.arrays = nil
}

// mountArrays opens every destination that is a blade of a dit array
// (read-write) and routes its paths to the array.
func (j *Job) mountArrays() error {
	roots := make([]string, len(j.dests))
	for i, d := range j.dests {
		roots[i] = d.root
	}
	f, arrays, err := MountArrays(j.opts.FS, roots, raid.OpenOptions{ReadWrite: true, Writer: "dit " + j.opts.ToolVersion,
		AllowDegraded: j.opts.AllowDegraded, FS: j.opts.BladeFS})
	if err != nil {
		return err
	}
	j.opts.FS, j.arrays = f, arrays
	return nil
}

// MountArrays opens every destination root that is a blade of a dit array
// and returns an FS that routes paths below those roots to the arrays (and
// the rest to base) (dest.MountArrays). The caller closes the arrays.
func MountArrays(base fsys.FS, roots []string, o raid.OpenOptions) (fsys.FS, []*raid.Array, error) {
	return dest.MountArrays(base, roots, o)
}

// within reports whether p is base or inside it.
func within(p, base string) bool {
	if p == base {
		return true
	}
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// New checks the options, scans the cards, locks the destinations, checks
// free space and records a new job. Every refusal names the path or value
// and what to do.
func New(ctx context.Context, o Options) (*Job, error) {
	o.defaults()
	if o.Catalog == nil {
		return nil, errors.New("offload: no catalog")
	}
	if err := splitStores(&o); err != nil {
		return nil, err
	}
	if err := Check(o); err != nil {
		return nil, err
	}
	if err := checkStores(ctx, o); err != nil {
		return nil, err
	}
	start := o.Now()
	j := &Job{opts: o, cat: o.Catalog, algos: o.Hashes, valgos: verifyAlgos(o.Hashes, o.VerifyAll), turns: cascade.NewTurns(o.ThenParallel)}
	host, _ := os.Hostname()
	j.rec = &catalog.Job{Name: o.Name, State: catalog.JobRunning, Host: host, ToolVersion: o.ToolVersion, PID: os.Getpid(),
		Hashes: hashing.Names(o.Hashes), VerifyMode: string(o.Verify), VerifyHashes: verifyHashesName(o.VerifyAll),
		Layout: o.Layout, OnConflict: string(o.OnConflict), IncludeHidden: o.IncludeHidden, MHL: o.MHL, Ignore: o.Ignore, Started: start,
		ThenParallel: o.ThenParallel, Proxies: o.Proxies, ProxiesTo: o.ProxiesTo, RcloneConfig: o.RcloneConfig, CloudBwLimit: o.RemoteBwLimit}

	cardPaths, destPaths, err := checkPaths(o.FS, o.Cards, append(append([]string(nil), o.Dests...), o.Then...))
	if err != nil {
		return nil, err
	}
	scans := make([]*source.Card, len(cardPaths))
	var histories []*ascmhl.Records
	outs := map[string]string{}
	for i, p := range cardPaths {
		// Not stopped by ctx: a Ctrl-C during the scan stops the job
		// once it is recorded (Run returns it interrupted, resumable),
		// not before, when it would leave nothing to resume (a second
		// Ctrl-C quits at once).
		sc, records, err := ScanCard(o.FS, p, o.IncludeHidden, o.Ignore...)
		if err != nil {
			return nil, err
		}
		histories = append(histories, records)
		out, err := ExpandLayout(o.Layout, o.Name, sc.Label, start)
		if err != nil {
			return nil, err
		}
		if err := checkPathLengths(sc, destPaths, out); err != nil {
			return nil, err
		}
		// Compared case-insensitively: on an exFAT, NTFS, SMB or APFS
		// destination "A001" and "a001" are one folder, where one card's
		// copies could replace the other's (no-replace renames are not
		// atomic on every such filesystem).
		if other, dup := outs[foldName(out)]; dup {
			return nil, usageErrorf("cards %s and %s would both land in %q: rename one card folder or use a --layout that tells them apart", other, p, out)
		}
		outs[foldName(out)] = p
		scans[i] = sc
	}
	if err := j.record(cardPaths, destPaths, scans, start); err != nil {
		return nil, err
	}
	for i, c := range j.cards {
		c.history = histories[i]
	}
	if err := j.mountArrays(); err != nil {
		j.withdraw(err)
		return nil, err
	}
	if err := j.lockAndPlan(); err != nil {
		j.Close()
		j.withdraw(err)
		return nil, err
	}
	return j, nil
}

// withdraw deletes the record of a new job refused before its first byte
// (a destination read-only, locked or too small): a refusal leaves no job
// behind, only its message. If the record cannot be deleted, the job is
// marked failed.
func (j *Job) withdraw(refusal error) {
	if j.rec == nil || j.rec.ID == 0 {
		return
	}
	if err := j.cat.DeleteJob(j.rec.ID); err != nil {
		j.fail(refusal)
	}
}

// Check refuses a new job's command-line mistakes (no card, no
// destination, a card or destination that does not exist or is not a
// folder, one given twice or overlapping another, a bad --layout) with a
// [UsageError] naming the value and what to do. It reads only the paths
// given, never the catalog: a front end calls it first, so that no
// mistake is masked by what the catalog says (a card offloaded before).
// [New] calls it too.
func Check(o Options) error {
	if len(o.Cards) == 0 {
		return usageErrorf("no card given: name one or more card folders, e.g. dit offload -d /Volumes/RAID /Volumes/A001")
	}
	if err := splitStores(&o); err != nil {
		return err
	}
	if len(o.Dests) == 0 {
		if len(o.Then) > 0 {
			return usageErrorf("--then without -d: a cascade copies the card to the -d destinations first, then from that copy to the --then destinations")
		}
		return usageErrorf("no destination: give at least one -d DEST, e.g. dit offload -d /Volumes/RAID %s", o.Cards[0])
	}
	if len(o.Then) > 0 && o.Verify == VerifyNone {
		return usageErrorf("--then with --verify none: a cascade fills the --then destinations from a first copy that was read back and verified; use --verify dest (default) or source+dest")
	}
	layout := o.Layout
	if layout == "" {
		layout = DefaultLayout
	}
	if _, err := ExpandLayout(layout, cmp.Or(o.Name, "job"), "CARD", time.Now()); err != nil {
		return err
	}
	_, _, err := checkPaths(o.FS, o.Cards, append(append([]string(nil), o.Dests...), o.Then...))
	return err
}

func verifyHashesName(all bool) string {
	if all {
		return "all"
	}
	return "fastest"
}

// checkPaths resolves cards and destinations and refuses overlaps.
func checkPaths(fsy interface {
	Lstat(string) (fs.FileInfo, error)
}, cards, dests []string) ([]string, []string, error) {
	var cp, dp []string
	for _, c := range cards {
		r, err := dest.Resolve(c)
		if err != nil {
			return nil, nil, err
		}
		fi, err := os.Stat(r)
		if err != nil {
			return nil, nil, usageErrorf("card %s does not exist: check the path and that the card is mounted", c)
		}
		if !fi.IsDir() {
			return nil, nil, usageErrorf("card %s is not a folder: give the card's mount point or folder", c)
		}
		for i, prev := range cp {
			if prev == r || dest.SameFile(prev, r) {
				return nil, nil, usageErrorf("card %s is given twice (as %s and %s): name each card once", r, cards[i], c)
			}
			if within(r, prev) || within(prev, r) {
				return nil, nil, usageErrorf("card %s and card %s overlap (one is inside the other): name each card once", prev, r)
			}
		}
		cp = append(cp, r)
	}
	for _, d := range dests {
		if dest.IsRemote(d) {
			if slices.Contains(dp, d) {
				return nil, nil, usageErrorf("destination %s is given twice: name each destination once", d)
			}
			dp = append(dp, d)
			continue
		}
		r, err := dest.Resolve(d)
		if err != nil {
			return nil, nil, err
		}
		fi, err := os.Stat(r)
		if err != nil {
			return nil, nil, usageErrorf("destination %s does not exist: create it, or check that the drive is mounted (dit never creates a destination root, so it cannot fill the wrong disk)", d)
		}
		if !fi.IsDir() {
			return nil, nil, usageErrorf("destination %s is not a folder: give the folder to copy into (the drive's mount point or a folder on it)", d)
		}
		for _, c := range cp {
			switch {
			case r == c || dest.SameFile(r, c):
				return nil, nil, usageErrorf("destination %s is the card %s itself: dit never writes to a card; choose another destination", d, c)
			case within(r, c):
				return nil, nil, usageErrorf("destination %s is inside the card %s: dit never writes to a card; choose a folder on another drive", d, c)
			case within(c, r):
				return nil, nil, usageErrorf("destination %s contains the card %s: the copy would land in what is being read; choose another folder", d, c)
			}
		}
		for _, prev := range dp {
			if prev == r || dest.SameFile(prev, r) {
				return nil, nil, usageErrorf("destination %s is given twice: name each destination once", d)
			}
			if within(r, prev) || within(prev, r) {
				return nil, nil, usageErrorf("destinations %s and %s overlap (one is inside the other): choose separate folders", prev, r)
			}
		}
		dp = append(dp, r)
	}
	return cp, dp, nil
}

func (j *Job) record(cardPaths, destPaths []string, scans []*source.Card, start time.Time) error {
	if err := j.cat.CreateJob(j.rec); err != nil {
		return err
	}
	for i, p := range destPaths {
		d := &catalog.Dest{JobID: j.rec.ID, Seq: i, Path: p, Hop: 1}
		if i >= len(j.opts.Dests) {
			d.Hop = 2
		}
		if err := j.cat.AddDest(d); err != nil {
			return err
		}
		j.dests = append(j.dests, &destination{root: p, rec: d})
	}
	for i, sc := range scans {
		out, _ := ExpandLayout(j.opts.Layout, j.opts.Name, sc.Label, start)
		k := &catalog.Card{JobID: j.rec.ID, Seq: i, Label: sc.Label, Path: cardPaths[i], VolumeID: sc.VolumeID,
			Bytes: sc.Bytes, Files: sc.Files.Len(), State: "pending"}
		if err := j.cat.AddCard(k); err != nil {
			return err
		}
		j.cards = append(j.cards, j.newCardRun(sc, k, out, false))
	}
	return nil
}

func (j *Job) fail(err error) {
	if j.rec == nil || j.rec.ID == 0 {
		return
	}
	j.cat.SetJobState(j.rec.ID, catalog.JobFailed, j.opts.Now(), err.Error())
}

// lockAndPlan locks every destination, removes leftover temps, plans each
// file and checks free space.
func (j *Job) lockAndPlan() error {
	for _, d := range j.dests {
		if d.isStore() {
			continue // nothing to lock; nothing is ever replaced there
		}
		l, err := lockDest(d.root, j.rec.ID)
		if err != nil {
			return err
		}
		j.locks = append(j.locks, l)
	}
	if err := checkLocksDistinct(j.locks); err != nil {
		return err
	}
	need := map[string]int64{}
	avail := map[string]uint64{}
	roots := map[string][]string{}
	fsids := map[*destination]string{}
	for _, d := range j.dests {
		if d.isStore() {
			continue // the storage's room is the storage's
		}
		free, fsid, err := j.opts.FS.Free(d.root)
		if err != nil {
			return fmt.Errorf("cannot read free space of destination %s: %w", d.root, err)
		}
		avail[fsid] = free
		roots[fsid] = append(roots[fsid], d.root)
		fsids[d] = fsid
	}
	for _, c := range j.cards {
		if c.absent || c.storeRun() {
			continue
		}
		for di, d := range c.dests {
			n, err := c.plan(di)
			if err != nil {
				return err
			}
			need[fsids[d]] += n
		}
	}
	// A cascade's second run writes every card to each --then
	// destination: what it will need is counted now, so a shuttle too
	// small is refused before the card is read, not after it is free.
	for _, c := range j.cards {
		if c.rec.Hop <= 1 && j.secondOf(c) == nil {
			for _, d := range j.hopDests(2) {
				if d.isStore() {
					continue
				}
				need[fsids[d]] += c.scan.Bytes
			}
		}
	}
	for _, c := range j.cards {
		c.computeTotals()
	}
	if err := j.checkArraySpace(); err != nil {
		return err
	}
	for fsid, n := range need {
		if msg := spaceShortfall(n, int64(avail[fsid])); msg != "" {
			return fmt.Errorf("not enough space on %s: %s: free space or choose another destination", strings.Join(roots[fsid], " and "), msg)
		}
	}
	return nil
}

// SpaceMargin is kept free on a destination beyond the copies: folders,
// hash lists, reports, and the filesystem's own rounding.
const SpaceMargin = 64 << 20

// spaceShortfall says, in figures that add up, why need bytes of copies do
// not fit in free bytes ("" when they do).
func spaceShortfall(need, free int64) string {
	total := need + SpaceMargin
	if total <= free {
		return ""
	}
	return fmt.Sprintf("the copies need %s and dit keeps a margin of %s for folders, hash lists and reports: %s in all; %s is free, %s short",
		units.FormatBytes(need), units.FormatBytes(SpaceMargin), units.FormatBytes(total), units.FormatBytes(free), units.FormatBytes(total-free))
}

// MaxNameBytes is the longest file name the file systems dit writes to
// allow (ext4, XFS, APFS, exFAT in UTF-8 bytes at most).
const MaxNameBytes = 255

// tempPattern is the os.CreateTemp pattern of a copy's temp in its final
// folder: "." + name + "." + random digits + TempSuffix, so a listing
// shows whose temp it is. A name too long for that (a card may hold
// names of up to MaxNameBytes) gets a short temp name instead: the
// name's first bytes (whole characters) and a hash of the whole name,
// "." + head + "~" + 16 hex digits + "." + digits + TempSuffix. The temp's
// path is recorded in the catalog (checkpoints) either way; its name is
// never read back as the file's.
func tempPattern(name string) string {
	const room = MaxNameBytes - 1 - 1 - 10 - len(TempSuffix) // ".", ".", os.CreateTemp's digits
	if len(name) <= room {
		return "." + name + ".*" + TempSuffix
	}
	head := name[:64]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	sum := xxhash.Sum64String(name)
	return fmt.Sprintf(".%s~%016x.*%s", head, sum, TempSuffix)
}

// isTempName tells dit's own temp names (writer.go: "." + name + "." +
// digits + TempSuffix; the hash-list writer's: 12 hex digits) from a card
// file that merely ends in TempSuffix.
func isTempName(name string) bool {
	rest, ok := strings.CutSuffix(name, TempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 || i == len(rest)-1 {
		return false
	}
	for _, r := range rest[i+1:] {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// FailedSuffix ends the name a copy that failed its read-back is moved
// aside to ("NAME.dit-failed", or "NAME.dit-failed.2" and on when that
// exists): a copy that did not verify never keeps the card's file name.
const FailedSuffix = ".dit-failed"

// asideOf returns the name a failed copy's aside name (FailedSuffix,
// perhaps numbered) was moved aside from.
func asideOf(name string) (string, bool) {
	i := strings.LastIndex(name, FailedSuffix)
	if i <= 0 {
		return "", false
	}
	if n := name[i+len(FailedSuffix):]; n != "" {
		if n[0] != '.' || len(n) == 1 {
			return "", false
		}
		for _, r := range n[1:] {
			if r < '0' || r > '9' {
				return "", false
			}
		}
	}
	return name[:i], true
}

// removeTemps removes dit's temps below dir (rel is dir's path in the
// card's folder, "" at the top); a name that is one of the card's own
// files (cardFile) is never removed, whatever it looks like. aside, if
// set, is told of every failed copy moved aside (FailedSuffix) found
// there: its path and the card path it was a copy of.
func removeTemps(fsy interface {
	ReadDir(string) ([]fs.DirEntry, error)
	Remove(string) error
}, dir, rel string, cardFile func(rel string) bool, aside func(p, of string)) {
	ents, err := fsy.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p, r := filepath.Join(dir, e.Name()), path.Join(rel, e.Name())
		if e.IsDir() {
			removeTemps(fsy, p, r, cardFile, aside)
		} else if isTempName(e.Name()) && e.Type().IsRegular() && !cardFile(r) {
			fsy.Remove(p)
		} else if of, ok := asideOf(e.Name()); ok && aside != nil && e.Type().IsRegular() && !cardFile(r) {
			aside(p, path.Join(rel, of))
		}
	}
}

// foldName is a name as a case-insensitive filesystem compares it.
func foldName(s string) string { return strings.ToLower(s) }

// relJoin joins slash paths for the catalog.
func relJoin(a, b string) string { return path.Join(a, b) }
