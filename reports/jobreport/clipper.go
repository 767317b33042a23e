package jobreport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
)

// ThumbDir is the folder, inside a job's reports folder, of the clips'
// poster frames: thumbnails/<card>/<clip>.jpg.
const ThumbDir = "thumbnails"

// Clipper recognises the clips of each card of a job once the card is
// done (from the catalog's file list and the sidecars of its first copy,
// never from the card) and makes a poster frame of each clip ffmpeg can
// read, from that copy, one clip at a time under nice: so it never slows
// the offload. Without ffmpeg on PATH the clips are listed without
// thumbnails and the report says "no thumbnails (ffmpeg not found)".
//
// Feed it the job's events ([Clipper.OnEvent]) and use
// [Clipper.AfterJob] for the job's reports: it waits for the cards in
// hand, does those it was not told of, then writes the reports.
type Clipper struct {
	// ALE adds the job's ALE files (one per frame rate) to the reports
	// [Clipper.AfterJob] writes, when the job has clips.
	ALE bool

	cat   *catalog.Catalog
	ctx   context.Context
	ff    *clips.FFmpeg
	ffErr error

	mu      sync.Mutex
	queue   []queued
	running bool
	idle    *sync.Cond
	done    map[int64]bool // card ids recognised
}

type queued struct {
	job   int64
	label string
}

// NewClipper returns a Clipper for jobs recorded in cat; ctx ends its
// work (ffmpeg is stopped).
func NewClipper(ctx context.Context, cat *catalog.Catalog) *Clipper {
	c := &Clipper{cat: cat, ctx: ctx, done: map[int64]bool{}}
	c.idle = sync.NewCond(&c.mu)
	c.ff, c.ffErr = clips.FindFFmpeg()
	return c
}

// FFmpeg tells whether ffmpeg and ffprobe were found.
func (c *Clipper) FFmpeg() bool { return c.ff != nil }

// OnEvent takes a card whose run is done (offload.EvRunDone) into the
// queue; it never blocks.
func (c *Clipper) OnEvent(e offload.Event) {
	if e.Type != offload.EvRunDone || e.JobID == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue = append(c.queue, queued{e.JobID, e.Card})
	if !c.running {
		c.running = true
		go c.work()
	}
}

func (c *Clipper) work() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.running = false
			c.idle.Broadcast()
			c.mu.Unlock()
			return
		}
		q := c.queue[0]
		c.queue = c.queue[1:]
		c.mu.Unlock()
		cards, err := c.cat.Cards(q.job)
		if err != nil {
			continue
		}
		for _, k := range catalog.FirstRun(cards) {
			if k.Label == q.label {
				c.safeCard(q.job, k.ID) // its notes are in the catalog
			}
		}
	}
}

// safeCard is Card on the clipper's goroutine: a panic there would end
// dit, so it is recovered and logged (the card's clips are left out; the
// reports are written without them).
func (c *Clipper) safeCard(jobID, cardID int64) {
	defer func() {
		if p := recover(); p != nil {
			Warn(fmt.Sprintf("recognising the clips of card %d of job %d crashed: %v (a bug in dit: please report it)", cardID, jobID, p))
		}
	}()
	c.Card(c.ctx, jobID, cardID)
}

// Wait returns once every card in the queue is done.
func (c *Clipper) Wait() {
	c.mu.Lock()
	for c.running {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

// Card recognises the clips of one card of job jobID, records them in the
// catalog and makes their poster frames (a card not verified gets no
// thumbnails). Doing a card again replaces its clips.
func (c *Clipper) Card(ctx context.Context, jobID, cardID int64) error {
	j, err := c.cat.Job(jobID)
	if err != nil {
		return err
	}
	cards, err := c.cat.Cards(jobID)
	if err != nil {
		return err
	}
	first := catalog.FirstRun(cards)
	var card *catalog.Card
	var labels []string
	for _, k := range first {
		labels = append(labels, k.Label)
		if k.ID == cardID {
			card = k
		}
	}
	if card == nil {
		return fmt.Errorf("card %d is not a card of job %d in %s", cardID, jobID, c.cat.Path())
	}
	files, err := c.cat.Files(cardID)
	if err != nil {
		return err
	}
	dests, err := c.cat.Dests(jobID)
	if err != nil {
		return err
	}
	out, err := offload.ExpandLayout(j.Layout, j.Name, card.Label, j.Started)
	if err != nil {
		return err
	}
	reports := filepath.FromSlash(Dir(j.Layout, j.Name, j.Started, labels))
	// The copies clips are read from: the card's folder on each
	// destination of the first run that is a plain folder (a dit array's
	// blades hold no files).
	var roots, reportDirs []string
	for _, d := range dests {
		if d.Hop == 2 || raid.IsBlade(d.Path) {
			continue
		}
		root := filepath.Join(d.Path, filepath.FromSlash(out))
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		roots = append(roots, root)
		reportDirs = append(reportDirs, filepath.Join(d.Path, reports))
	}
	state := map[string]string{}
	var list []clips.File
	for _, f := range files {
		list = append(list, clips.File{Rel: f.Rel, Size: f.Size})
		state[f.Rel] = f.State
	}
	var read clips.ReadFunc
	if len(roots) > 0 {
		read = func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(roots[0], filepath.FromSlash(rel))) }
	}
	rec := clips.Recognize(list, read)
	rows := make([]catalog.Clip, len(rec.Clips))
	for i := range rec.Clips {
		k := &rec.Clips[i]
		verified := true
		for _, f := range k.Files() {
			verified = verified && state[f] == offload.StateVerified
		}
		if verified && len(roots) > 0 {
			rows[i].Thumb, rows[i].ThumbNote = c.thumb(ctx, k, roots[0], reportDirs, card.Label)
		} else if !verified {
			rows[i].ThumbNote = "not verified"
		} else {
			rows[i].ThumbNote = "no copy in a folder"
		}
		rows[i] = catalog.Clip{Name: k.Name, Reel: k.Reel, Family: k.Family, Camera: k.Camera, Type: k.Type, Codec: k.Codec,
			Poster: k.Poster, Files: len(k.Files()), Bytes: k.Bytes, Frames: k.Frames, FPS: k.FPS, Seconds: k.Seconds,
			Resolution: k.Resolution, TCStart: k.TCStart, Serial: k.Serial, Verified: verified,
			Thumb: rows[i].Thumb, ThumbNote: rows[i].ThumbNote}
	}
	if err := c.cat.SetClips(cardID, rows); err != nil {
		return err
	}
	c.mu.Lock()
	c.done[cardID] = true
	c.mu.Unlock()
	return nil
}

// thumb probes clip k on the copy at root (filling what its sidecars did
// not say) and writes its poster frame into each reports folder. It
// returns the thumbnail's path in the reports folder, or why there is
// none.
func (c *Clipper) thumb(ctx context.Context, k *clips.Clip, root string, reportDirs []string, label string) (string, string) {
	if c.ff == nil {
		return "", clips.NoFFmpeg
	}
	in := filepath.Join(root, filepath.FromSlash(k.Poster))
	if !clips.Readable(k, clips.Head(in)) {
		return "", "not a format ffmpeg reads (" + k.Type + ")"
	}
	if p, err := c.ff.Probe(ctx, in); err == nil {
		p.Fill(k)
	} else {
		return "", err.Error()
	}
	rel := ThumbDir + "/" + safeName(label) + "/" + safeName(k.Name) + ".jpg"
	at := 0.0
	if k.Seconds > 0 {
		at = min(1, k.Seconds/2)
	}
	first := filepath.Join(reportDirs[0], filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(first), 0o755); err != nil {
		return "", err.Error()
	}
	if err := c.ff.Poster(ctx, in, first, at); err != nil {
		return "", err.Error()
	}
	b, err := os.ReadFile(first)
	if err != nil {
		return "", err.Error()
	}
	for _, d := range reportDirs[1:] {
		p := filepath.Join(d, filepath.FromSlash(rel))
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			os.WriteFile(p, b, 0o644)
		}
	}
	return rel, ""
}

// AfterJob is [AfterJob] with clips: it waits for the cards in the queue,
// recognises those it was not given (a resumed job's, a card that
// failed), then writes the reports (with the clip sheet when there are
// clips).
func (c *Clipper) AfterJob(written func([]string)) func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
	after := afterJob(c.cat, Options{ALE: c.ALE}, written)
	return func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
		c.Wait()
		if cards, err := c.cat.Cards(s.JobID); err == nil {
			for _, k := range catalog.FirstRun(cards) {
				c.mu.Lock()
				done := c.done[k.ID]
				c.mu.Unlock()
				if !done && ctx.Err() == nil {
					c.Card(ctx, s.JobID, k.ID)
				}
			}
		}
		return after(ctx, s, fsy)
	}
}
