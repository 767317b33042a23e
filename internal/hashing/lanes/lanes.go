package lanes

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunk is the most a stream hands the lanes at once: a batch's streams
// advance together by at most this many bytes before the next batch can
// take in a stream that arrived meanwhile.
const Chunk = 64 << 10

// maxSpan bounds how far apart a batch's streams may lie in memory: the
// kernels address every lane as a signed 32-bit offset from one base.
const maxSpan = 1 << 30

const (
	init0 = 0x67452301
	init1 = 0xefcdab89
	init2 = 0x98badcfe
	init3 = 0x10325476
)

// service is the process's one set of MD5 lanes.
type service struct {
	kind  string // "AVX-512", "AVX2"; "" no lanes
	width int    // lanes of the widest kernel; 0 none
	why   string // why there are none

	// minLanes is the fewest streams hashed at once in lanes; a batch of
	// fewer is hashed by crypto/md5, one stream after another.
	minLanes int

	// halves: a batch of more than 8 streams is hashed by the 8-lane
	// kernel twice (its first 8 streams, then the rest) rather than by
	// the 16-lane one, where that is faster (eightTwice: AMD Zen 4).
	halves bool

	writers atomic.Int32 // streams inside Write with whole blocks to hash

	mu     sync.Mutex
	queue  []*job // waiting, in arrival order; a batch is taken from its front
	leader bool   // a goroutine is hashing batches

	stats stats
}

type stats struct {
	batches atomic.Int64 // batches hashed in lanes
	streams atomic.Int64 // streams in them, summed
	scalarB atomic.Int64 // bytes hashed by crypto/md5 (one stream alone)
	lanesB  atomic.Int64 // bytes hashed in lanes
}

var svc = newService()

func newService() *service {
	kind, width, why := detect()
	return &service{kind: kind, width: width, why: why, minLanes: 3, halves: width == 16 && eightTwice()}
}

// job is one stream's whole blocks waiting for the lanes.
type job struct {
	d    *Digest
	p    []byte    // still to hash, a multiple of 64 bytes
	wake chan bool // true: lead the batches; false: p is hashed
}

// New returns an MD5 hash.Hash: lane-backed (a *Digest) where the CPU has
// vector lanes, crypto/md5's otherwise. Either saves and restores its
// state in crypto/md5's format (encoding.BinaryMarshaler).
func New() hash.Hash {
	if svc.width == 0 {
		return md5.New()
	}
	return NewDigest()
}

// NewDigest returns a lane-backed MD5 hasher even where there are no
// lanes (its blocks are then hashed by crypto/md5): for tests.
func NewDigest() *Digest {
	d := &Digest{svc: svc, wake: make(chan bool, 1)}
	d.Reset()
	return d
}

// Digest is an MD5 stream whose whole blocks are hashed in the process's
// lanes together with the other streams hashing at the same moment. Its
// state is its own (the lanes keep none between batches): it saves and
// restores it in crypto/md5's binary format, so a checkpoint taken with one
// resumes with the other. A Digest is used by one goroutine at a time,
// as crypto/md5's.
type Digest struct {
	svc  *service
	s    [4]uint32
	x    [64]byte // the partial block
	nx   int
	len  uint64
	wake chan bool
	std  hash.Hash // crypto/md5, for the partial block, a stream alone and Sum
	buf  []byte    // crypto/md5's state, reused
}

// Size returns 16.
func (d *Digest) Size() int { return md5.Size }

// BlockSize returns 64.
func (d *Digest) BlockSize() int { return md5.BlockSize }

// Reset starts a new stream.
func (d *Digest) Reset() {
	d.s = [4]uint32{init0, init1, init2, init3}
	d.nx, d.len = 0, 0
}

// Write hashes p. It never fails.
func (d *Digest) Write(p []byte) (int, error) {
	n := len(p)
	d.len += uint64(n)
	if d.nx > 0 {
		c := copy(d.x[d.nx:], p)
		d.nx += c
		p = p[c:]
		if d.nx < 64 {
			return n, nil
		}
		d.scalar(d.x[:])
		d.nx = 0
	}
	if whole := len(p) &^ 63; whole > 0 {
		d.blocks(p[:whole])
		p = p[whole:]
	}
	d.nx = copy(d.x[:], p)
	return n, nil
}

// blocks hashes p (whole blocks): alone with crypto/md5 while no other
// stream is hashing, else through the lanes, Chunk by Chunk.
func (d *Digest) blocks(p []byte) {
	s := d.svc
	s.writers.Add(1)
	defer s.writers.Add(-1)
	for len(p) > 0 {
		c := min(len(p), Chunk)
		if s.width == 0 || s.writers.Load() < int32(s.minLanes) {
			d.scalar(p[:c])
			s.stats.scalarB.Add(int64(c))
			p = p[c:]
			continue
		}
		// The whole rest at once: the lanes take it Chunk by Chunk.
		s.run(&job{d: d, p: p, wake: d.wake})
		return
	}
}

// scalar hashes whole blocks p into d.s with crypto/md5.
func (d *Digest) scalar(p []byte) {
	if d.std == nil {
		d.std = md5.New()
	}
	d.buf = appendState(d.buf[:0], d.s, nil, 0)
	if err := d.std.(interface{ UnmarshalBinary([]byte) error }).UnmarshalBinary(d.buf); err != nil {
		panic("lanes: crypto/md5 refused its own state: " + err.Error())
	}
	d.std.Write(p)
	d.buf, _ = d.std.(interface{ AppendBinary([]byte) ([]byte, error) }).AppendBinary(d.buf[:0])
	for i := range 4 {
		d.s[i] = binary.BigEndian.Uint32(d.buf[4+4*i:])
	}
}

// Sum appends the MD5 of the stream so far to b; the stream goes on.
func (d *Digest) Sum(b []byte) []byte {
	if d.std == nil {
		d.std = md5.New()
	}
	d.buf = appendState(d.buf[:0], d.s, d.x[:d.nx], d.len)
	if err := d.std.(interface{ UnmarshalBinary([]byte) error }).UnmarshalBinary(d.buf); err != nil {
		panic("lanes: crypto/md5 refused its own state: " + err.Error())
	}
	return d.std.Sum(b)
}

const (
	magic         = "md5\x01"
	marshaledSize = len(magic) + 4*4 + 64 + 8
)

// appendState appends crypto/md5's binary form of a state: the magic,
// the four words (big-endian), the partial block padded to 64 bytes, the
// length (big-endian).
func appendState(b []byte, s [4]uint32, x []byte, n uint64) []byte {
	b = append(b, magic...)
	for _, w := range s {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	b = append(b, x...)
	b = append(b, make([]byte, 64-len(x))...)
	return binary.BigEndian.AppendUint64(b, n)
}

// AppendBinary appends d's state in crypto/md5's binary form.
func (d *Digest) AppendBinary(b []byte) ([]byte, error) {
	return appendState(b, d.s, d.x[:d.nx], d.len), nil
}

// MarshalBinary returns d's state in crypto/md5's binary form.
func (d *Digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, marshaledSize))
}

// UnmarshalBinary restores a state saved by MarshalBinary or by
// crypto/md5's.
func (d *Digest) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("md5: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return fmt.Errorf("md5: invalid hash state size %d, want %d", len(b), marshaledSize)
	}
	b = b[len(magic):]
	for i := range 4 {
		d.s[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	d.len = binary.BigEndian.Uint64(b[16+64:])
	d.nx = int(d.len % 64)
	copy(d.x[:], b[16:16+64])
	return nil
}

// run hashes j's blocks in the lanes and returns when they are hashed.
// The goroutine that finds no leader leads: it takes batches from the
// front of the queue and hashes them until its own stream is done, then
// hands the lead to the stream at the front (or leaves it free).
func (s *service) run(j *job) {
	s.mu.Lock()
	s.queue = append(s.queue, j)
	if s.leader {
		s.mu.Unlock()
		if lead := <-j.wake; !lead {
			return
		}
	} else {
		s.leader = true
		s.mu.Unlock()
	}
	s.lead(j)
}

func (s *service) lead(me *job) {
	var batch []*job
	gathered := false
	for {
		s.mu.Lock()
		if len(me.p) == 0 {
			if len(s.queue) > 0 {
				next := s.queue[0]
				s.mu.Unlock()
				next.wake <- true
				return
			}
			s.leader = false
			s.mu.Unlock()
			return
		}
		// Let streams between two writes come in before a batch that
		// would leave lanes empty (once per batch).
		if want := min(s.width, int(s.writers.Load())); len(s.queue) < want && !gathered {
			s.mu.Unlock()
			runtime.Gosched()
			gathered = true
			continue
		}
		gathered = false
		batch = s.take(batch[:0])
		s.mu.Unlock()
		s.hash(batch)
		s.mu.Lock()
		kept := s.queue[:0]
		for _, q := range s.queue {
			if len(q.p) > 0 {
				kept = append(kept, q)
			} else if q != me {
				q.wake <- false
			}
		}
		clear(s.queue[len(kept):])
		s.queue = kept
		s.mu.Unlock()
	}
}

// take returns up to width jobs from the front of the queue whose blocks
// lie within maxSpan of the first one's.
func (s *service) take(batch []*job) []*job {
	first := addr(s.queue[0].p)
	for _, q := range s.queue {
		if len(batch) == s.width {
			break
		}
		a := addr(q.p)
		if a+maxSpan > first && a < first+maxSpan {
			batch = append(batch, q)
		}
	}
	return batch
}

// hash advances every job of batch by the same number of bytes: the
// shortest one's rest, at most Chunk.
func (s *service) hash(batch []*job) {
	if len(batch) < s.minLanes {
		for _, q := range batch {
			c := min(len(q.p), Chunk)
			q.d.scalar(q.p[:c])
			q.p = q.p[c:]
			s.stats.scalarB.Add(int64(c))
		}
		return
	}
	n := Chunk
	for _, q := range batch {
		n = min(n, len(q.p))
	}
	var states [16][4]uint32
	var ps [16][]byte
	for i, q := range batch {
		states[i] = q.d.s
		ps[i] = q.p
	}
	batchKernel(states[:len(batch)], ps[:len(batch)], n, s.width, s.halves)
	for i, q := range batch {
		q.d.s = states[i]
		q.p = q.p[n:]
	}
	s.stats.batches.Add(1)
	s.stats.streams.Add(int64(len(batch)))
	s.stats.lanesB.Add(int64(n * len(batch)))
}

// batchKernel hashes n bytes of each of ps in lanes (kernel), a batch
// of more than 8 streams as two of the 8-lane kernel where halves is set.
func batchKernel(states [][4]uint32, ps [][]byte, n, width int, halves bool) {
	if halves && len(ps) > 8 {
		kernel(states[:8], ps[:8], n, 8)
		kernel(states[8:], ps[8:], n, 8)
		return
	}
	kernel(states, ps, n, width)
}

// Describe says which MD5 implementation the process uses, for dit
// version and a job's log: "md5: AVX-512, 16 lanes", "md5: AVX-512, 16
// lanes (2 x 8)" (a batch of more than 8 streams hashed by the 8-lane
// kernel twice), "md5: AVX2, 8 lanes", "md5: crypto/md5 (no AVX2)",
// "md5: crypto/md5 (arm64)".
func Describe() string { return svc.describe() }

func (s *service) describe() string {
	switch {
	case s.width == 0:
		return "md5: crypto/md5 (" + s.why + ")"
	case s.halves:
		return fmt.Sprintf("md5: %s, %d lanes (2 x 8)", s.kind, s.width)
	}
	return fmt.Sprintf("md5: %s, %d lanes", s.kind, s.width)
}

// Counters are what the process's MD5 streams went through so far.
type Counters struct {
	Batches     int64 // batches hashed in lanes
	Streams     int64 // streams in those batches, summed (Streams/Batches: lanes filled)
	LaneBytes   int64 // bytes hashed in lanes
	ScalarBytes int64 // whole blocks hashed by crypto/md5 (a stream alone)
}

// Count returns the process's counters.
func Count() Counters {
	st := &svc.stats
	return Counters{Batches: st.batches.Load(), Streams: st.streams.Load(), LaneBytes: st.lanesB.Load(), ScalarBytes: st.scalarB.Load()}
}

// Lanes returns how many streams the process hashes at once in vector
// lanes (0: none, crypto/md5 only).
func Lanes() int { return svc.width }

// InLanes reports whether k streams hashing at once go through the
// lanes (else each is hashed by crypto/md5 on its own goroutine).
func InLanes(k int) bool { return svc.width > 0 && k >= svc.minLanes }
