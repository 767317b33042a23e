package proxies

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/copysource"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
)

// Dir is the folder, on each destination proxies go to, that holds them:
// proxies/<the card's folder>/<clip>.<ext>.
const Dir = "proxies"

// Options are a job's proxies.
type Options struct {
	Spec Spec
	// To are the destinations of the job (-d, --then) the proxies are
	// written to: folders, dit arrays (a blade), cloud destinations
	// (rclone:REMOTE:PATH); none: the job's first folder destination.
	To []string
	// Rclone reaches the cloud destinations among To (nil: rclone on
	// PATH, the user's own configuration).
	Rclone *cloud.Rclone
	// Workers is how many ffmpeg run at once (0: 1).
	Workers int
	// Catalog is the job's: clips are read from its file lists, proxies
	// recorded in it.
	Catalog *catalog.Catalog
	// OnProxy is told of each proxy recorded (any goroutine; may be nil).
	OnProxy func(catalog.Proxy)
	// OnCount is told, for card label, how many of its clips to make
	// are done with (made or failed) of how many: at its start and as
	// each clip is done (any goroutine; may be nil).
	OnCount func(label string, made, total int)
}

// ErrNoFFmpeg is New's error when ffmpeg or ffprobe is not on PATH.
var ErrNoFFmpeg = errors.New("--proxies needs ffmpeg and ffprobe on PATH (Debian, Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg), or leave --proxies out")

// Maker makes a job's proxies, card by card once each card's run is
// done, from its verified copy (never the card), at low priority.
type Maker struct {
	o   Options
	ff  *clips.FFmpeg
	ctx context.Context

	mu      sync.Mutex
	queue   []queued
	running bool
	idle    *sync.Cond
	done    map[int64]bool // card ids done
	staged  []staged       // proxies for dit arrays, written at the job's end
}

type queued struct {
	job   int64
	label string
}

// New returns a Maker; ctx ends its work (ffmpeg is stopped).
func New(ctx context.Context, o Options) (*Maker, error) {
	ff, err := clips.FindFFmpeg()
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	m := &Maker{o: o, ff: ff, ctx: ctx, done: map[int64]bool{}}
	m.idle = sync.NewCond(&m.mu)
	return m, nil
}

// OnEvent takes a card whose run is done (offload.EvRunDone) into the
// queue; it never blocks.
func (m *Maker) OnEvent(e offload.Event) {
	if e.Type != offload.EvRunDone || e.JobID == 0 || e.Hop == 2 {
		return // a cascade's second run: its first run's copy is the one read
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue = append(m.queue, queued{e.JobID, e.Card})
	if !m.running {
		m.running = true
		go m.work()
	}
}

func (m *Maker) work() {
	for {
		m.mu.Lock()
		if len(m.queue) == 0 {
			m.running = false
			m.idle.Broadcast()
			m.mu.Unlock()
			return
		}
		q := m.queue[0]
		m.queue = m.queue[1:]
		m.mu.Unlock()
		cards, err := m.o.Catalog.Cards(q.job)
		if err != nil {
			continue
		}
		for _, k := range catalog.FirstRun(cards) {
			m.mu.Lock()
			done := m.done[k.ID]
			m.mu.Unlock()
			if k.Label == q.label && !done {
				m.Card(m.ctx, q.job, k.ID) // what failed is recorded
			}
		}
	}
}

// Wait returns once every card in the queue is done.
func (m *Maker) Wait() {
	m.mu.Lock()
	for m.running {
		m.idle.Wait()
	}
	m.mu.Unlock()
}

// Run waits for the cards in the queue, then makes the proxies of the
// job's cards it was not told of (a resumed job's, a card that failed).
// Cancelling ctx stops ffmpeg; the clip it was making is recorded as
// cancelled. What failed is recorded, not returned: the error is only the
// catalog's.
func (m *Maker) Run(ctx context.Context, jobID int64) error {
	m.Wait()
	cards, err := m.o.Catalog.Cards(jobID)
	if err != nil {
		return err
	}
	var errs []error
	for _, k := range catalog.FirstRun(cards) {
		m.mu.Lock()
		done := m.done[k.ID]
		m.mu.Unlock()
		if !done && ctx.Err() == nil {
			errs = append(errs, m.Card(ctx, jobID, k.ID))
		}
	}
	return errors.Join(errs...)
}

// card is what a card's proxies are made from and to.
type card struct {
	jobID, id int64
	label     string
	out       string // the card's folder on a destination (slash path)
	// rec holds the card's clips as its files were walked (a frame
	// sequence's first and last frame, not each frame), each clip's
	// files not verified flagged.
	rec     *clips.Recognizer
	src     copysource.Source
	srcNote string   // why there is no source
	to      []string // destinations the proxies go to
	// made are the destinations each clip's proxy is on already (a
	// resumed job); have a proxy of it in a folder, still there.
	made map[string]map[string]bool
	have map[string]*Made
}

// todo are the destinations of c.to that clip has no proxy on yet.
func (c *card) todo(clip string) []string {
	var out []string
	for _, d := range c.to {
		if !c.made[clip][d] {
			out = append(out, d)
		}
	}
	return out
}

// Card makes the proxies of card cardID of job jobID (each clip once:
// a clip with a proxy made before on a destination, still there, is
// left).
func (m *Maker) Card(ctx context.Context, jobID, cardID int64) error {
	m.mu.Lock()
	m.done[cardID] = true
	m.mu.Unlock()
	c, err := m.card(jobID, cardID)
	if err != nil {
		return err
	}
	if c.src != nil {
		defer c.src.Close()
	}
	var read clips.ReadFunc
	if c.src != nil {
		read = c.src.Read
	}
	rec := c.rec.Card(read)
	sem := make(chan struct{}, m.o.Workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	var todo []*clips.Clip
	for i := range rec.Clips {
		if k := &rec.Clips[i]; len(c.todo(k.Name)) > 0 || len(c.to) == 0 {
			todo = append(todo, k)
		}
	}
	// made counts the clips done with, told in order (under cmu).
	var made int
	var cmu sync.Mutex
	count := func(done int) {
		cmu.Lock()
		defer cmu.Unlock()
		made += done
		if m.o.OnCount != nil {
			m.o.OnCount(c.label, made, len(todo))
		}
	}
	count(0)
	for _, k := range todo {
		verified := k.Flagged == 0 // every file of the clip verified
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := m.clip(ctx, c, k, verified); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			count(1)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// card reads card cardID of job jobID from the catalog: its files, its
// verified copy and where its proxies go.
func (m *Maker) card(jobID, cardID int64) (*card, error) {
	cat := m.o.Catalog
	j, err := cat.Job(jobID)
	if err != nil {
		return nil, err
	}
	cards, err := cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	c := &card{jobID: jobID, id: cardID, made: map[string]map[string]bool{}, have: map[string]*Made{}}
	for _, k := range cards {
		if k.ID == cardID {
			c.label = k.Label
		}
	}
	if c.label == "" {
		return nil, fmt.Errorf("card %d is not a card of job %d in %s", cardID, jobID, cat.Path())
	}
	// The catalog's rows are walked, not listed: memory does not grow
	// with the card's files (a card of frames holds a clip per sequence).
	c.rec = clips.NewRecognizer()
	err = cat.EachFile(cardID, nil, func(f *catalog.File) error {
		c.rec.AddFlagged(clips.File{Rel: f.Rel, Size: f.Size}, f.State != offload.StateVerified)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.out, err = offload.ExpandLayout(j.Layout, j.Name, c.label, j.Started); err != nil {
		return nil, err
	}
	dests, err := cat.Dests(jobID)
	if err != nil {
		return nil, err
	}
	c.src, c.srcNote, c.to = m.where(dests, c.out)
	done, err := cat.Proxies(jobID)
	if err != nil {
		return nil, err
	}
	held := map[string]map[string]cloud.Object{}
	for _, p := range done {
		if p.CardID != cardID || p.State != catalog.ProxyMade || p.Preset != m.o.Spec.String() {
			continue
		}
		if c.made[p.Clip] == nil {
			c.made[p.Clip] = map[string]bool{}
		}
		switch {
		case raid.IsBlade(p.Dest):
			c.made[p.Clip][p.Dest] = true // in a dit array: its record stands
		case cloud.IsDest(p.Dest):
			// On the remote as recorded (a listing that fails: the
			// record stands); never sent again.
			h, ok := held[p.Dest]
			if !ok {
				h = m.cloudHeld(m.ctx, p.Dest, c.out)
				held[p.Dest] = h
			}
			o, ok := h[strings.TrimPrefix(p.Path, path.Join(Dir, c.out)+"/")]
			c.made[p.Clip][p.Dest] = h == nil || ok && o.Size == p.Size
		default:
			f := filepath.Join(p.Dest, filepath.FromSlash(p.Path))
			if fi, err := os.Stat(f); err == nil && fi.Size() == p.Size {
				c.made[p.Clip][p.Dest] = true
				c.have[p.Clip] = &Made{Path: f, Size: p.Size, Sums: p.Sums}
			}
		}
	}
	return c, nil
}

// where picks the copy a card's proxies are read from (its first folder
// destination holding the card's folder out, else its first dit array)
// and the folders they are written to.
func (m *Maker) where(dests []*catalog.Dest, out string) (copysource.Source, string, []string) {
	var folders, blades []string
	for _, d := range dests {
		switch {
		case d.Hop == 2:
		case raid.IsBlade(d.Path):
			blades = append(blades, d.Path)
		case cloud.IsDest(d.Path): // not read from here
		default:
			folders = append(folders, d.Path)
		}
	}
	to := m.o.To
	if len(to) == 0 && len(folders) > 0 {
		to = folders[:1]
	}
	for _, d := range folders {
		root := filepath.Join(d, filepath.FromSlash(out))
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			return copysource.Folder(root), "", to
		}
	}
	if len(blades) > 0 {
		s, err := copysource.OpenArray(blades[0], out)
		if err != nil {
			return nil, err.Error(), to
		}
		return s, "", to
	}
	return nil, "no verified copy in a folder or a dit array", to
}

// clip makes clip k's proxy on each destination and records it.
func (m *Maker) clip(ctx context.Context, c *card, k *clips.Clip, verified bool) error {
	base := catalog.Proxy{JobID: c.jobID, CardID: c.id, Clip: k.Name, Preset: m.o.Spec.String()}
	if len(c.to) > 0 {
		base.Dest = c.to[0]
	}
	switch {
	case !verified:
		return m.record(base, catalog.ProxyFailed, "not verified: a proxy is made only from a verified copy")
	case c.src == nil:
		return m.record(base, catalog.ProxyFailed, c.srcNote)
	case len(c.to) == 0:
		return m.record(base, catalog.ProxyFailed, "no destination to write proxies to: give --proxies-to a destination of the job")
	}
	base.Source = c.src.Name(k.Poster)
	if media := mediaCount(k); media > 1 && k.Frames == media {
		return m.record(base, catalog.ProxySkipped, "a frame sequence ("+k.Type+"): no proxy made of frames yet")
	}
	if !clips.Readable(k, c.src.Head(k.Poster)) {
		return m.record(base, catalog.ProxySkipped, "not a format ffmpeg reads ("+k.Type+")")
	}
	in, err := c.src.Input(k.Poster)
	if err != nil {
		return m.record(base, catalog.ProxyFailed, err.Error())
	}
	src := Source{In: in, Name: k.Name}
	if m.o.Spec.Burnin {
		src.Font = FontFor(k.Name)
	}
	// A file ffprobe cannot read goes to ffmpeg all the same: its error
	// line is the one recorded.
	if p, err := m.ff.Probe(ctx, in); err == nil {
		src.TC, src.Rate = p.TCStart, p.FPS
	}
	base.TCStart = src.TC
	return m.deliver(ctx, c, k.Name, src, base)
}

// mediaCount is how many media files clip k has: a frame sequence's
// frames (a Recognizer's sequence lists none in Media: its Seq counts
// them), else its Media.
func mediaCount(k *clips.Clip) int {
	if k.Seq != nil && len(k.Media) == 0 {
		return k.Seq.Count
	}
	return len(k.Media)
}

// deliver makes the proxy of a clip (or takes the one a resumed job made
// in a folder) and puts it on each destination that has none yet: made
// once, in the first folder destination, else in a staging folder
// (removed once uploaded, or once the job's end has written it into the
// arrays); copied to the other folders, staged for the arrays, uploaded
// to the cloud destinations.
func (m *Maker) deliver(ctx context.Context, c *card, clip string, src Source, base catalog.Proxy) error {
	name := safeName(clip)
	var folders, blades, clouds []string
	for _, d := range c.todo(clip) {
		switch {
		case raid.IsBlade(d):
			blades = append(blades, d)
		case cloud.IsDest(d):
			clouds = append(clouds, d)
		default:
			folders = append(folders, d)
		}
	}
	algos := m.algos(c)
	if len(clouds) > 0 && !slices.Contains(algos, hashing.MD5) {
		algos = append(algos, hashing.MD5) // what the storage computes
	}
	made := c.have[clip]
	if made != nil {
		// Made before: still the file recorded (else made again), hashed
		// with MD5 too for a cloud copy.
		sums, size, err := HashFile(made.Path, algos)
		if _, _, same := sums.Compare(made.Sums); err != nil || !same || size != made.Size {
			made = nil
		} else {
			made = &Made{Path: made.Path, Size: size, Sums: sums}
		}
	}
	var stageDir string
	encoded := made == nil
	if encoded {
		var first string
		if len(folders) > 0 {
			first = filepath.Join(folders[0], Dir, filepath.FromSlash(c.out))
		} else {
			d, err := os.MkdirTemp("", "dit-proxies-")
			if err != nil {
				return m.record(base, catalog.ProxyFailed, "staging a proxy: "+err.Error())
			}
			first, stageDir = d, d
		}
		var err error
		if made, err = Encode(ctx, m.ff.FFmpeg, m.o.Spec, src, first, name, algos); err != nil {
			if stageDir != "" {
				os.RemoveAll(stageDir)
			}
			state := catalog.ProxyFailed
			if ctx.Err() != nil {
				state = catalog.ProxyCancelled
			}
			return m.record(base, state, err.Error())
		}
	}
	if len(blades) > 0 {
		m.stage(base, made, c.out, name+m.o.Spec.Preset.Ext, stageDir, blades)
	} else if stageDir != "" {
		defer os.RemoveAll(stageDir)
	}
	var errs []error
	for i, d := range folders {
		p := base
		p.Dest = d
		cp, err := made, error(nil)
		if i > 0 || !encoded {
			dir := filepath.Join(d, Dir, filepath.FromSlash(c.out))
			if cp, err = CopyTo(made, dir, name+m.o.Spec.Preset.Ext, algos); err != nil {
				errs = append(errs, m.record(p, catalog.ProxyFailed, err.Error()))
				continue
			}
			p.VerifyAlgos = hashing.Names(algos)
		}
		rel, _ := filepath.Rel(d, cp.Path)
		p.Path, p.Size, p.Sums, p.State, p.MadeAt = filepath.ToSlash(rel), cp.Size, cp.Sums, catalog.ProxyMade, time.Now()
		errs = append(errs, m.add(p))
	}
	for _, d := range clouds {
		p := base
		p.Dest = d
		p = m.toCloud(ctx, p, made, c.out, name+m.o.Spec.Preset.Ext, algos)
		p.MadeAt = time.Now()
		errs = append(errs, m.add(p))
	}
	return errors.Join(errs...)
}

// algos are the job's hash algorithms.
func (m *Maker) algos(c *card) []hashing.Algo {
	if j, err := m.o.Catalog.Job(c.jobID); err == nil {
		if a, err := hashing.ParseList(j.Hashes); err == nil && len(a) > 0 {
			return a
		}
	}
	return []hashing.Algo{hashing.XXH64}
}

func (m *Maker) record(p catalog.Proxy, state, why string) error {
	p.State, p.Error, p.MadeAt = state, why, time.Now()
	return m.add(p)
}

func (m *Maker) add(p catalog.Proxy) error {
	if err := m.o.Catalog.AddProxy(&p); err != nil {
		return err
	}
	crashpoint.Hit("proxy: recorded")
	if m.o.OnProxy != nil {
		m.o.OnProxy(p)
	}
	return nil
}

// safeName is a clip's name as a file name: any Unicode, but no path
// separator or NUL.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "clip"
	}
	return s
}
