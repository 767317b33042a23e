package jobreport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/copysource"
	"github.com/dit-org/dit/internal/format/ascmhl"
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
// the offload. The copy is the card's folder on the first folder
// destination, else in the first dit array (opened read-only; ffmpeg
// reads a clip from it through a local HTTP range server); poster frames
// for an array are written into it with the job's reports. Without ffmpeg on PATH the clips are listed without
// thumbnails and the report says "no thumbnails (ffmpeg not found)".
//
// Feed it the job's events ([Clipper.OnEvent]) and use
// [Clipper.AfterJob] for the job's reports: it waits for the cards in
// hand, does those it was not told of, then writes the reports.
type Clipper struct {
	// ALE adds the job's editorial lists (ALE, EDL and FCPXML, one of
	// each per frame rate) to the reports [Clipper.AfterJob] writes, when
	// the job has clips.
	ALE bool

	cat   *catalog.Catalog
	ctx   context.Context
	ff    *clips.FFmpeg
	ffErr error

	mu      sync.Mutex
	queue   []queued
	running bool
	idle    *sync.Cond
	done    map[int64]bool           // card ids recognised
	pending map[int64][]pendingThumb // by job: poster frames for its arrays
}

type queued struct {
	job   int64
	label string
}

// NewClipper returns a Clipper for jobs recorded in cat; ctx ends its
// work (ffmpeg is stopped).
func NewClipper(ctx context.Context, cat *catalog.Catalog) *Clipper {
	c := &Clipper{cat: cat, ctx: ctx, done: map[int64]bool{}, pending: map[int64][]pendingThumb{}}
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
// catalog (with their sound and their disagreements with sidecars, as
// the media said them: what every report reads) and makes their poster
// frames (a card not verified gets no
// thumbnails). Doing a card again replaces its clips.
func (c *Clipper) Card(ctx context.Context, jobID, cardID int64) error {
	w, err := c.cardWork(jobID, cardID)
	if err != nil {
		return err
	}
	src, srcErr := w.source()
	if src != nil {
		defer src.Close()
	}
	// The catalog's rows are walked, not listed, into a Recognizer: it
	// holds a clip's first and last frame, not every frame, and counts
	// each clip's files not verified.
	rc := clips.NewRecognizer()
	err = c.cat.EachFile(cardID, nil, func(f *catalog.File) error {
		rc.AddFlagged(clips.File{Rel: f.Rel, Size: f.Size}, f.State != offload.StateVerified)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the files of card %s from the catalog: %w", w.label, err)
	}
	var read clips.ReadFunc
	if src != nil {
		read = src.Read
	}
	rec := rc.Card(read)
	rows := make([]catalog.Clip, len(rec.Clips))
	var thumbs []pendingThumb
	for i := range rec.Clips {
		k := &rec.Clips[i]
		verified := k.Flagged == 0
		var thumb, note string
		switch {
		case !verified:
			note = "not verified"
		case src == nil && srcErr != nil:
			note = srcErr.Error()
		case src == nil:
			note = "no copy in a folder or a dit array"
		default:
			var jpeg []byte
			if thumb, jpeg, note = c.thumb(ctx, k, src, w); jpeg != nil && len(w.arrays) > 0 {
				thumbs = append(thumbs, pendingThumb{rel: thumb, jpeg: jpeg})
			}
		}
		rows[i] = catalog.Clip{Name: k.Name, Reel: k.Reel, Family: k.Family, Camera: k.Camera, Type: k.Type, Codec: k.Codec,
			Poster: k.Poster, Files: k.FileCount(), Bytes: k.Bytes, Frames: k.Frames, FPS: k.FPS, Seconds: k.Seconds,
			Resolution: k.Resolution, TCStart: k.TCStart, Verified: verified, Thumb: thumb, ThumbNote: note,
			Audio: catalogAudio(k.Audio), Conflicts: k.Conflicts, ClipShot: catalog.ClipShot(k.Shot)}
	}
	if err := c.cat.SetClips(cardID, rows); err != nil {
		return err
	}
	c.mu.Lock()
	c.done[cardID] = true
	if len(thumbs) > 0 {
		c.pending[jobID] = append(c.pending[jobID], thumbs...)
	}
	c.mu.Unlock()
	return nil
}

// catalogAudio is a clip's sound as the catalog keeps it (nil: nothing
// read it).
func catalogAudio(a *clips.Audio) *catalog.ClipAudio {
	if a == nil {
		return nil
	}
	return &catalog.ClipAudio{Streams: a.Streams, Channels: a.Channels, Rate: a.Rate, Bits: a.Bits, Codec: a.Codec}
}

// pendingThumb is a poster frame to be written into the job's dit arrays
// with its reports (the array is the job's own until then).
type pendingThumb struct {
	rel  string // in the reports folder
	jpeg []byte
}

// cardWork is what the Clipper reads of a card: where its verified
// copies are.
type cardWork struct {
	label string
	// out is the card's folder on a destination (slash path); reports
	// the job's reports folder there.
	out, reports string
	// folders are the first run's folder destinations that hold the
	// card's folder; arrays its dit array destinations (a blade each).
	folders, arrays []string
}

// cardWork reads card cardID of job jobID from the catalog.
func (c *Clipper) cardWork(jobID, cardID int64) (*cardWork, error) {
	j, err := c.cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	cards, err := c.cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	var card *catalog.Card
	var labels []string
	for _, k := range catalog.FirstRun(cards) {
		labels = append(labels, k.Label)
		if k.ID == cardID {
			card = k
		}
	}
	if card == nil {
		return nil, fmt.Errorf("card %d is not a card of job %d in %s", cardID, jobID, c.cat.Path())
	}
	w := &cardWork{label: card.Label, reports: Dir(j.Layout, j.Name, j.Started, labels)}
	dests, err := c.cat.Dests(jobID)
	if err != nil {
		return nil, err
	}
	if w.out, err = offload.ExpandLayout(j.Layout, j.Name, card.Label, j.Started); err != nil {
		return nil, err
	}
	for _, d := range dests {
		switch {
		case d.Hop == 2:
		case raid.IsBlade(d.Path):
			w.arrays = append(w.arrays, d.Path)
		default:
			if fi, err := os.Stat(filepath.Join(d.Path, filepath.FromSlash(w.out))); err == nil && fi.IsDir() {
				w.folders = append(w.folders, d.Path)
			}
		}
	}
	return w, nil
}

// source is the copy the card's clips are read from: its first folder,
// else its first dit array (nil, and why, when there is neither).
func (w *cardWork) source() (copysource.Source, error) {
	if len(w.folders) > 0 {
		return copysource.Folder(filepath.Join(w.folders[0], filepath.FromSlash(w.out))), nil
	}
	if len(w.arrays) > 0 {
		return copysource.OpenArray(w.arrays[0], w.out)
	}
	return nil, nil
}

// thumb probes clip k on the copy src (filling what its sidecars did not
// say) and makes its poster frame, written into the reports folder of
// each folder destination. It returns the thumbnail's path in the
// reports folder and the JPEG, or why there is none.
func (c *Clipper) thumb(ctx context.Context, k *clips.Clip, src copysource.Source, w *cardWork) (string, []byte, string) {
	if c.ff == nil {
		return "", nil, clips.NoFFmpeg
	}
	if !clips.Readable(k, src.Head(k.Poster)) {
		return "", nil, "not a format ffmpeg reads (" + k.Type + ")"
	}
	in, err := src.Input(k.Poster)
	if err != nil {
		return "", nil, err.Error()
	}
	p, err := c.ff.Probe(ctx, in)
	if err != nil {
		return "", nil, err.Error()
	}
	p.Fill(k)
	rel := ThumbDir + "/" + safeName(w.label) + "/" + safeName(k.Name) + ".jpg"
	at := 0.0
	if k.Seconds > 0 {
		at = min(1, k.Seconds/2)
	}
	tmp, err := os.MkdirTemp("", "dit-thumb")
	if err != nil {
		return "", nil, err.Error()
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "poster.jpg")
	if err := c.ff.Poster(ctx, in, out, at); err != nil {
		return "", nil, err.Error()
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return "", nil, err.Error()
	}
	for _, d := range w.folders {
		p := filepath.Join(d, filepath.FromSlash(w.reports), filepath.FromSlash(rel))
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			os.WriteFile(p, b, 0o644)
		}
	}
	return rel, b, ""
}

// writePending writes the poster frames of job jobID made from or for
// its dit arrays into each array's reports folder, through the job's
// filesystem fsy (the arrays it has open).
func (c *Clipper) writePending(jobID int64, fsy fsys.FS) error {
	c.mu.Lock()
	thumbs := c.pending[jobID]
	delete(c.pending, jobID)
	c.mu.Unlock()
	if len(thumbs) == 0 {
		return nil
	}
	j, err := c.cat.Job(jobID)
	if err != nil {
		return err
	}
	cards, err := c.cat.Cards(jobID)
	if err != nil {
		return err
	}
	dests, err := c.cat.Dests(jobID)
	if err != nil {
		return err
	}
	var labels []string
	for _, k := range catalog.FirstRun(cards) {
		labels = append(labels, k.Label)
	}
	rel := filepath.FromSlash(Dir(j.Layout, j.Name, j.Started, labels))
	var errs []error
	for _, d := range dests {
		if d.Hop == 2 || !raid.IsBlade(d.Path) {
			continue
		}
		for _, t := range thumbs {
			p := filepath.Join(d.Path, rel, filepath.FromSlash(t.rel))
			if err := fsy.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				errs = append(errs, err)
				continue
			}
			st := ascmhl.FSStore{FS: fsy, Dir: filepath.Dir(p)}
			if err := st.WriteFileAtomic(filepath.Base(p), t.jpeg, true); err != nil {
				errs = append(errs, fmt.Errorf("thumbnail %s: %w", offload.DisplayPath(d.Path, filepath.Join(rel, filepath.FromSlash(t.rel))), err))
			}
		}
	}
	return errors.Join(errs...)
}

// AfterJob is [AfterJob] with clips: it waits for the cards in the queue,
// recognises those it was not given (a resumed job's, a card that
// failed), then writes the reports (with the clip sheet when there are
// clips).
func (c *Clipper) AfterJob(written func([]string)) func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
	return func(ctx context.Context, s *offload.Summary, fsy fsys.FS) error {
		if fsy == nil {
			fsy = fsys.OS{}
		}
		after := afterJob(c.cat, Options{ALE: c.ALE, FS: fsy}, written)
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
		pendErr := c.writePending(s.JobID, fsy) // before the reports, which read them
		return errors.Join(after(ctx, s, fsy), pendErr)
	}
}
