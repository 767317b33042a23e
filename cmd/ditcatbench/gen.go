//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/plan"
)

// Spec is the shape of a generated catalog: Days shooting days of
// JobsPerDay jobs of CardsPerJob cards of FilesPerCard frame files each,
// every file copied to two destinations, plus one big job of BigFiles
// files on two cards (the job show / report subject). The last day is
// today (dit day, dit serve's recent jobs); the first job of each day
// but the first has a failed file, the first day's second job was
// interrupted (a run that never ended).
type Spec struct {
	Days, JobsPerDay, CardsPerJob, FilesPerCard int
	BigFiles                                    int
	Now                                         time.Time
	// Dests are the destination folders recorded (nothing is written).
	Dests [2]string
}

// Files is the number of file rows the spec writes.
func (s Spec) Files() int {
	return s.Days*s.JobsPerDay*s.CardsPerJob*s.FilesPerCard + s.BigFiles + 10000
}

// Generated says what was written: the big job's id and a name that
// exists once.
type Generated struct {
	BigJob   int64
	SmallJob int64  // a job of 10,000 files
	OneName  string // a file name with exactly one file row
	Prefix   string // a name prefix of exactly 1,000 files
	Rows     int    // file rows written
	Today    time.Time
}

// genCard is one card of a generated job.
type genCard struct {
	label   string
	cam     byte
	reel    int
	files   int
	failAt  int // index of the file that failed (-1: none)
	stopAt  int // files recorded before the interruption (-1: all)
	started time.Time
}

// Generate writes the spec's jobs into cat through the catalog API, as
// dit offload records them (see gen_test.go, which compares a generated
// job with a real one). Reels are numbered through the whole catalog,
// so each file name exists once.
func Generate(cat *catalog.Catalog, s Spec, progress func(files int)) (*Generated, error) {
	g := &Generated{}
	reel := 1
	written := 0
	day0 := time.Date(s.Now.Year(), s.Now.Month(), s.Now.Day(), 9, 0, 0, 0, time.Local)
	for d := 0; d < s.Days; d++ {
		day := day0.AddDate(0, 0, d-(s.Days-1))
		for jn := 0; jn < s.JobsPerDay; jn++ {
			start := day.Add(time.Duration(jn) * 3 * time.Hour)
			var cards []genCard
			for c := 0; c < s.CardsPerJob; c++ {
				k := genCard{label: fmt.Sprintf("%c%03d", 'A'+byte(c%4), reel), cam: 'A' + byte(c%4), reel: reel,
					files: s.FilesPerCard, failAt: -1, stopAt: -1, started: start}
				if jn == 0 && d > 0 && c == 0 {
					k.failAt = s.FilesPerCard / 2
				}
				if d == 0 && jn == 1 && c == 0 {
					k.stopAt = s.FilesPerCard / 3
				}
				cards = append(cards, k)
				reel++
			}
			name := fmt.Sprintf("Day%02d_%c", d+1, 'a'+byte(jn))
			if _, err := genJob(cat, s, name, start, cards, func(n int) { written += n; progress(written) }); err != nil {
				return nil, err
			}
		}
	}
	// A 10,000-file job and the big job, today after the others: two
	// cards each.
	start := day0.Add(time.Duration(s.JobsPerDay) * 3 * time.Hour)
	var small []genCard
	for c := 0; c < 2; c++ {
		small = append(small, genCard{label: fmt.Sprintf("%c%03d", 'C'+byte(c), reel), cam: 'C' + byte(c), reel: reel,
			files: 5000, failAt: -1, stopAt: -1, started: start})
		reel++
	}
	sid, err := genJob(cat, s, "Small10k", start, small, func(n int) { written += n; progress(written) })
	if err != nil {
		return nil, err
	}
	g.SmallJob = sid
	start = start.Add(time.Hour)
	var cards []genCard
	for c := 0; c < 2; c++ {
		cards = append(cards, genCard{label: fmt.Sprintf("%c%03d", 'A'+byte(c), reel), cam: 'A' + byte(c), reel: reel,
			files: s.BigFiles / 2, failAt: -1, stopAt: -1, started: start})
		if c == 0 {
			g.OneName = frameName(cards[0], 1, 500)
			g.Prefix = fmt.Sprintf("%c%03dC%03d_F0000", cards[0].cam, reel%1000, 1) // frames 0 to 999
		}
		reel++
	}
	id, err := genJob(cat, s, "Big100k", start, cards, func(n int) { written += n; progress(written) })
	if err != nil {
		return nil, err
	}
	g.BigJob, g.Today, g.Rows = id, day0, written
	return g, cat.Flush()
}

// clipFrames is the frames of a clip (files A120C010_F0000000.DNG, ...
// in one clip folder): a prefix ending in the frame's thousands has
// 1,000 hits.
const clipFrames = 5000

// frameName is the file name of frame f of clip clip of card k, as an
// ARRI-style frame-based camera names them: A120C010_F0010500.DNG.
func frameName(k genCard, clip, f int) string {
	return fmt.Sprintf("%c%03dC%03d_F%07d.DNG", k.cam, k.reel%1000, clip, f)
}

// genJob records one job of cards on s.Dests; it returns the job's id.
func genJob(cat *catalog.Catalog, s Spec, name string, start time.Time, cards []genCard, done func(int)) (int64, error) {
	interrupted := false
	for _, k := range cards {
		interrupted = interrupted || k.stopAt >= 0
	}
	// This host, a process that is gone: an interrupted job shows so.
	host, _ := os.Hostname()
	j := &catalog.Job{Name: name, State: catalog.JobRunning, Host: host, ToolVersion: "ditcatbench", PID: 1 << 30,
		Hashes: "md5,xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail",
		MHL: "asc", Started: start, ThenParallel: 1}
	if err := cat.CreateJob(j); err != nil {
		return 0, err
	}
	if _, err := cat.Exec(`INSERT INTO runs (job_id,seq,started) VALUES (?,1,?)`, j.ID, catalog.Time(start)); err != nil {
		return 0, err
	}
	var dests []*catalog.Dest
	for i, p := range s.Dests {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: p, Hop: 1}
		if err := cat.AddDest(d); err != nil {
			return 0, err
		}
		dests = append(dests, d)
	}
	t := start
	failed := false
	for i, gk := range cards {
		k := &catalog.Card{JobID: j.ID, Seq: i, Label: gk.label, Path: "/Volumes/" + gk.label, State: "copying",
			VolumeID: fmt.Sprintf("dev:64768 ino:%d", 1000+gk.reel)}
		if err := cat.AddCard(k); err != nil {
			return 0, err
		}
		// A card formatted on a Mac: its metadata left out.
		cat.PutSkipped(k.ID, catalog.Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata (copy it with --include-hidden)"})
		cat.PutSkipped(k.ID, catalog.Skip{Rel: ".Spotlight-V100", Kind: "metadata", Reason: "macOS Spotlight index (copy it with --include-hidden)"})
		end, f, n := genFiles(cat, name, k, gk, dests, t)
		failed = failed || f
		k.CopyStarted, k.CopyFinished = t, end
		k.VerifyStarted, k.VerifyFinished = t.Add(time.Second), end.Add(time.Second)
		switch {
		case gk.stopAt >= 0:
			k.State, k.CopyFinished, k.VerifyFinished = "interrupted", time.Time{}, time.Time{}
		case f:
			k.State, k.Sealed = "failed", end.Add(time.Second)
		default:
			k.State, k.Sealed, k.DoneAt = "verified", end.Add(time.Second), end.Add(2*time.Second)
		}
		cat.UpdateCard(k)
		if err := genClips(cat, k, gk, start); err != nil {
			return 0, err
		}
		genSamples(cat, j.ID, k, dests, t, end)
		t = end.Add(3 * time.Second)
		done(n)
	}
	if err := genPlan(cat, j.ID, start, t); err != nil {
		return 0, err
	}
	if interrupted {
		// Killed: the run never ended, the job stays "running" with a
		// process that is gone (shown interrupted).
		return j.ID, cat.Flush()
	}
	if _, err := cat.Exec(`UPDATE runs SET finished=? WHERE job_id=? AND seq=1`, catalog.Time(t), j.ID); err != nil {
		return 0, err
	}
	return j.ID, cat.SetJobState(j.ID, catalog.JobDone, t, "")
}

// genFiles records card k's files and their copies, as the engine does
// once each is verified, and returns when the last was, whether one
// failed and how many rows of files it wrote.
func genFiles(cat *catalog.Catalog, job string, k *catalog.Card, gk genCard, dests []*catalog.Dest, t time.Time) (time.Time, bool, int) {
	n := gk.files
	if gk.stopAt >= 0 {
		n = gk.stopAt
	}
	var bytes int64
	failed := false
	for i := 0; i < gk.files; i++ {
		clip, frame := 1+i/clipFrames, i%clipFrames
		fname := frameName(gk, clip, frame)
		rel := fmt.Sprintf("%c%03dC%03d_%s/%s", gk.cam, gk.reel%1000, clip, t.Format("060102"), fname)
		size := int64(11_800_000 + (i*7919)%400_000)
		bytes += size
		if i >= n {
			continue // not reached: the card was interrupted in its copy
		}
		st := t
		t = t.Add(20 * time.Millisecond)
		f := &catalog.File{CardID: k.ID, Rel: rel, Size: size, Mtime: gk.started.Add(-time.Duration(gk.files-i) * 42 * time.Millisecond),
			State: "verified", CopyStarted: st, CopyFinished: t}
		f.Sums.Set(hashing.MD5, hexOf(rel, 16))
		f.Sums.Set(hashing.XXH64, hexOf(rel+"x", 8))
		if i == gk.failAt {
			f.State, f.Error, failed = "failed", "read back from "+dests[1].Path+": xxh64 differs from the card's", true
		}
		cat.PutFile(f)
		for di, d := range dests {
			cp := &catalog.Copy{DestID: d.ID, Path: job + "/" + gk.label + "/" + rel, State: "verified", Written: true,
				VerifyAlgos: "xxh64", VerifiedAt: t,
				Identity: fmt.Sprintf("%d:%d:%d:%d:%d", 2049+di, 5000+i, size, f.Mtime.UnixNano(), t.UnixNano())}
			if i == gk.failAt && di == 1 {
				cp.State, cp.VerifiedAt, cp.Error, cp.Identity = "failed", time.Time{}, f.Error, ""
			}
			cat.PutCopy(k.ID, rel, cp)
		}
	}
	k.Files, k.Bytes = gk.files, bytes
	return t, failed, n
}

// genClips records card k's clips as dit's clipper does at the end of an
// offload: a CinemaDNG sequence per clip folder of clipFrames frames (the
// subject of dit report --format ale).
func genClips(cat *catalog.Catalog, k *catalog.Card, gk genCard, started time.Time) error {
	var out []catalog.Clip
	for first := 0; first < gk.files; first += clipFrames {
		clip, n := 1+first/clipFrames, min(clipFrames, gk.files-first)
		name := fmt.Sprintf("%c%03dC%03d", gk.cam, gk.reel%1000, clip)
		out = append(out, catalog.Clip{Name: name, Reel: gk.label, Family: "frames", Camera: "ALEXA 35", Type: "DNG",
			Codec: "CinemaDNG", Poster: fmt.Sprintf("%s_%s/%s", name, started.Format("060102"), frameName(gk, clip, 0)),
			Files: n, Bytes: int64(n) * 12_000_000, Frames: n, FPS: "24", Seconds: float64(n) / 24, Resolution: "4608x3164",
			TCStart: fmt.Sprintf("%02d:00:00:00", 10+clip%10), ClipShot: catalog.ClipShot{Serial: "K1.0012345"}, Verified: true})
	}
	return cat.SetClips(k.ID, out)
}

// genSamples records one throughput sample a second of the card's copy
// (read side and each destination).
func genSamples(cat *catalog.Catalog, job int64, k *catalog.Card, dests []*catalog.Dest, from, to time.Time) {
	secs := max(1, int(to.Sub(from)/time.Second))
	rate := float64(k.Bytes) / max(1, to.Sub(from).Seconds())
	for s := 1; s <= secs; s++ {
		t := from.Add(time.Duration(s) * time.Second)
		b := int64(rate * float64(s))
		cat.PutSample(job, catalog.Sample{CardID: k.ID, T: t, Bytes: b, Rate: rate, Phase: "copy", Seconds: 1})
		for _, d := range dests {
			cat.PutSample(job, catalog.Sample{CardID: k.ID, DestID: d.ID, T: t, Bytes: b, Rate: rate, Phase: "copy", Seconds: 1})
		}
	}
}

// hexOf is a stable fake hash of s, n bytes as hex.
func hexOf(s string, n int) string {
	h := fnv.New128a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum(nil))[:2*n]
}

// genPlan records the job's plan as every offload does (its cards at
// the rate they ran at), for dit job show's plan against run.
func genPlan(cat *catalog.Catalog, jobID int64, start, end time.Time) error {
	ks, err := cat.Cards(jobID)
	if err != nil {
		return err
	}
	res := plan.Result{Bottleneck: "card A", Total: 0}
	p := &catalog.Plan{JobID: jobID, T: start, Reason: "start"}
	for _, k := range ks {
		eta := max(k.CopyFinished.Sub(start).Seconds(), 1)
		safe := eta + 2
		rate := float64(k.Bytes) / eta
		res.Cards = append(res.Cards, plan.CardPlan{Name: k.Label, Rate: rate, LimitedBy: "media", ETASeconds: &eta, SafeSeconds: &safe})
		res.Total += rate
		p.Cards = append(p.Cards, catalog.PlanCard{Name: k.Label, CardID: k.ID, Rate: rate, LimitedBy: "media", ETASeconds: &eta})
	}
	all := max(end.Sub(start).Seconds(), 1)
	res.ETASeconds, res.SafeSeconds = &all, &all
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	p.Total, p.Bottleneck, p.Detail = res.Total, res.Bottleneck, string(b)
	return cat.AddPlan(p)
}
