package speedtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/units"
)

// Point is one part of a phase's curve: the bytes done at its end, the
// time by then (seconds since the phase started) and the part's rate.
type Point struct {
	At      int64   `json:"at_bytes"`
	Seconds float64 `json:"t_s"`
	Rate    float64 `json:"bytes_per_s"`
}

// Cliff is where the rate fell and stayed down: after At bytes the
// medium went from Before to After bytes per second (a cache ran out).
type Cliff struct {
	At     int64   `json:"at_bytes"`
	Before float64 `json:"before_bytes_per_s"`
	After  float64 `json:"after_bytes_per_s"`
}

// Phase is one pass of a test: writing the test files, or reading them
// (or a card's own files) back.
type Phase struct {
	Name    string  `json:"name"` // write | read
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"bytes_per_s"` // Bytes / Seconds
	Curve   []Point `json:"curve"`
	Cliff   *Cliff  `json:"cliff,omitempty"`
	// Direct is true when every byte went to or came from the medium
	// past the page cache (O_DIRECT, F_NOCACHE); Cache says how the
	// cache was kept out, or why it could not be.
	Direct bool   `json:"direct"`
	Cache  string `json:"cache"`
	// Spread is how much the rate varied between samples: the
	// coefficient of variation of the rates of SpreadSamples equal
	// samples of the phase, about each level when the rate fell once
	// (0 samples: too few I/Os to judge). Above MaxSpread the result is
	// not kept for the planner ([Result.Noisy]).
	Spread        float64 `json:"spread"`
	SpreadSamples int     `json:"spread_samples"`
	// spreadFlat is the spread about one level (no cliff): what Spread
	// is when the cliff is dropped (a folder in memory).
	spreadFlat float64
}

// Noisy reports whether the phase's rate varied by more than MaxSpread
// between samples.
func (p *Phase) Noisy() bool { return p != nil && p.SpreadSamples > 0 && p.Spread > MaxSpread }

// Noisy says why r is not fit to plan with, "" when it is: its rate
// varied by more than MaxSpread between samples in a phase ("the rate
// varied by 38 % between samples (write)"). Such a result is shown but
// not kept for the planner ([Keep]).
func (r *Result) Noisy() string {
	var worst *Phase
	for _, p := range []*Phase{r.Write, r.Read} {
		if p.Noisy() && (worst == nil || p.Spread > worst.Spread) {
			worst = p
		}
	}
	if worst == nil {
		return ""
	}
	return fmt.Sprintf("the rate varied by %.0f %% between samples (%s)", worst.Spread*100, worst.Name)
}

// inMemoryPhases marks the phases of a test of a folder held in memory
// (tmpfs, ramfs): no medium and no drive cache behind it, so no cache
// ran out whatever the curve did (a dip there is the machine's load).
func inMemoryPhases(ps ...*Phase) {
	for _, p := range ps {
		if p != nil {
			p.Direct, p.Cliff, p.Spread = false, nil, p.spreadFlat
			p.Cache = "the folder is in memory (tmpfs): no medium behind it, the rates are the memory's"
		}
	}
}

// Kind is what was tested.
type Kind string

const (
	// Folder: a destination folder, written then read back.
	Folder Kind = "folder"
	// Card: a camera card's own files, read only; nothing is written.
	Card Kind = "card"
	// Blade: one member of a dit array, tested as a folder.
	Blade Kind = "blade"
	// Array: a dit array as a whole, through its own writer and reader.
	Array Kind = "array"
)

// Result is one test of one path.
type Result struct {
	Path  string `json:"path"`
	Kind  Kind   `json:"kind"`
	Label string `json:"label,omitempty"` // blade 2, array demo-raid ...
	// Volume names the medium by an id that outlives its mount path
	// (VolumeID; array:UUID, blade:UUID), VolumeHow what it rests on.
	Volume    string    `json:"volume"`
	VolumeHow string    `json:"volume_by"`
	Started   time.Time `json:"started"`
	Size      int64     `json:"size"`
	Block     int       `json:"block"`
	Streams   int       `json:"streams"`
	Write     *Phase    `json:"write,omitempty"`
	Read      *Phase    `json:"read,omitempty"`
	Notes     []string  `json:"notes,omitempty"`
}

// Options set a test.
type Options struct {
	// Size is the bytes moved by each phase, all streams together
	// (rounded up to whole blocks per stream); 0: DefaultSize.
	Size int64
	// Block is the size of each read or write (rounded up to 4 KiB, as
	// direct I/O asks); 0: DefaultBlock.
	Block int
	// Streams is the number of files written and read at once (several
	// cards offloaded together); 0: 1.
	Streams int
	// Parts is the number of points of each curve; 0: DefaultParts.
	Parts int
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
	// Progress, when set, is told the bytes done in the current phase.
	Progress func(phase string, done, total int64)
}

const (
	// DefaultBlock is dit's own read size.
	DefaultBlock = 1 << 20
	// DefaultParts is the resolution of a curve: 1 % of the test.
	DefaultParts = 100
	// align is what direct I/O asks of buffers, offsets and lengths.
	align = 4096
	// MinSize is the smallest test that says anything.
	MinSize = 16_000_000
)

// cacheGuess is how much a medium may absorb in a fast cache before it
// shows its sustained rate: an NVMe blade's SLC cache is 2-4 GB and
// grows with free space; 16 GB covers today's blades.
const cacheGuess = 16_000_000_000

// DefaultSize is the test size for a medium with the given number of
// blades (1 for a folder) on a machine with mem bytes of memory: more
// than the memory (the page cache cannot hold it even where it cannot be
// bypassed) and more than the media's likely caches.
func DefaultSize(mem int64, blades int) int64 {
	return max(mem+mem/10, cacheGuess*int64(max(blades, 1)))
}

// Frame presets: one video frame per I/O, as a frame-based camera's files
// or an image sequence are written.
var Frames = map[string]int{
	"hd-rgb10":    1920 * 1080 * 4,     // DPX 10-bit, 8.3 MB
	"uhd-rgb10":   3840 * 2160 * 4,     // DPX 10-bit, 33.2 MB
	"4k-rgb10":    4096 * 2160 * 4,     // DPX 10-bit DCI 4K, 35.4 MB
	"uhd-rgba16":  3840 * 2160 * 4 * 2, // 16-bit RGBA, 66.4 MB
	"4k-rgba16":   4096 * 2160 * 4 * 2, // 16-bit RGBA DCI 4K, 70.8 MB
	"6k-rgba16":   6144 * 3160 * 4 * 2, // 16-bit RGBA 6K, 155 MB
	"raw-4k-12b":  4096 * 2160 * 3 / 2, // 12-bit Bayer raw, 13.3 MB
	"raw-8k-12b":  8192 * 4320 * 3 / 2, // 12-bit Bayer raw, 53.1 MB
	"prores-4444": 4096 * 2160 * 3 / 4, // ProRes 4444 XQ-like frame, 6.6 MB
}

// FrameNames lists the presets, for help texts.
func FrameNames() string {
	var names []string
	for n, b := range Frames {
		names = append(names, fmt.Sprintf("%s (%s)", n, units.FormatBytes(int64(b))))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (o *Options) fill(defSize int64) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Block <= 0 {
		o.Block = DefaultBlock
	}
	o.Block = (o.Block + align - 1) / align * align
	if o.Streams <= 0 {
		o.Streams = 1
	}
	if o.Parts <= 0 {
		o.Parts = DefaultParts
	}
	if o.Size <= 0 {
		o.Size = defSize
	}
	if o.Size < MinSize {
		return fmt.Errorf("test size %s is too small to say anything: use at least %s", units.FormatBytes(o.Size), units.FormatBytes(MinSize))
	}
	return nil
}

// perStream is each stream's bytes: whole blocks, together at least Size.
func (o *Options) perStream() int64 {
	n := (o.Size + int64(o.Streams) - 1) / int64(o.Streams)
	return (n + int64(o.Block) - 1) / int64(o.Block) * int64(o.Block)
}

// ErrCanceled is returned when the test was stopped; its files are gone.
var ErrCanceled = errors.New("speed test stopped")

func canceled(ctx context.Context) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
	}
	return nil
}

// pattern is a block of random bytes at a direct-I/O alignment
// (fsys.Block): what is written (no medium can compress or deduplicate it
// away).
func pattern(n int, seed uint64) []byte {
	b := fsys.Block(n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), 'd', 'i', 't'})
	r.Read(b)
	return b
}

// finish fills a phase's figures from its recorder.
func finish(p *Phase, r *recorder, parts int) {
	r.mu.Lock()
	ev := r.events
	r.mu.Unlock()
	if len(ev) == 0 {
		return
	}
	last := ev[len(ev)-1]
	p.Bytes, p.Seconds = last.cum, last.t.Seconds()
	if p.Seconds > 0 {
		p.Rate = float64(p.Bytes) / p.Seconds
	}
	p.Curve = curve(ev, parts)
	p.Cliff = findCliff(p.Curve)
	p.Spread, p.SpreadSamples = spread(ev, 0)
	p.spreadFlat = p.Spread
	if p.Cliff != nil {
		p.Spread, _ = spread(ev, p.Cliff.At)
	}
}
