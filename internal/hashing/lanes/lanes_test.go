package lanes

import (
	"bytes"
	"crypto/md5"
	"encoding"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func data(seed uint64, n int) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	b := make([]byte, n)
	rand.NewChaCha8(key).Read(b)
	return b
}

func stdSum(b []byte) [16]byte { return md5.Sum(b) }

func laneSum(t testing.TB, b []byte, write int) [16]byte {
	d := NewDigest()
	for len(b) > 0 {
		n := min(write, len(b))
		d.Write(b[:n])
		b = b[n:]
	}
	var out [16]byte
	copy(out[:], d.Sum(nil))
	return out
}

// Every size from 0 to 70 KiB (past Chunk and a partial block on either
// side) hashes as crypto/md5, written whole and in odd pieces, 16 sizes
// at once (so in lanes where the CPU has them).
func TestEverySizeTo70KiB(t *testing.T) {
	const top = 70 << 10
	b := data(1, top)
	want := make([][16]byte, top+1)
	h := md5.New()
	for n := 0; n <= top; n++ {
		copy(want[n][:], h.Sum(nil))
		if n < top {
			h.Write(b[n : n+1])
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := g; n <= top; n += 16 {
				if got := laneSum(t, b[:n], n+1); got != want[n] {
					errs <- fmt.Errorf("size %d in one write: %x, crypto/md5 %x", n, got, want[n])
					return
				}
				if n%61 == 0 {
					if got := laneSum(t, b[:n], 61); got != want[n] {
						errs <- fmt.Errorf("size %d in writes of 61: %x, crypto/md5 %x", n, got, want[n])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A spread of sizes up to 6 MiB, 16 streams at once: more than the lanes
// of the widest kernel, so batches of every width run.
func TestManyStreamsAtOnce(t *testing.T) {
	sizes := []int{0, 1, 63, 64, 65, 4095, 4096, 65535, Chunk, Chunk + 1, 3*Chunk - 64, 1 << 20, 1<<20 + 17,
		2<<20 - 1, 3 << 20, 4<<20 + 64, 5<<20 + 3, 6 << 20}
	before := Count()
	var wg sync.WaitGroup
	errs := make(chan error, 16*len(sizes))
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, n := range sizes {
				b := data(uint64(100*g+i), n)
				// Writes of 1 MiB + 1: the partial block moves every write.
				if got, want := laneSum(t, b, 1<<20+1), stdSum(b); got != want {
					errs <- fmt.Errorf("stream %d, size %d: %x, crypto/md5 %x", g, n, got, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	after := Count()
	t.Logf("%s: %d batches in lanes, %.1f streams a batch; %d MB in lanes, %d MB alone", Describe(),
		after.Batches-before.Batches, float64(after.Streams-before.Streams)/float64(max(1, after.Batches-before.Batches)),
		(after.LaneBytes-before.LaneBytes)/1e6, (after.ScalarBytes-before.ScalarBytes)/1e6)
}

// The kernel itself, batch by batch: every width from 2 to the lanes,
// streams of unequal lengths (a batch advances by the shortest); with
// 16 lanes both ways of hashing a batch of more than 8 (the 16-lane
// kernel, and the 8-lane kernel twice: halves).
func TestBatchesOfEveryWidth(t *testing.T) {
	if Lanes() == 0 {
		t.Skip("no vector lanes on this CPU: " + Describe())
	}
	for _, halves := range []bool{false, true} {
		if halves && Lanes() < 16 {
			continue
		}
		s := newService()
		s.halves = halves
		for k := s.minLanes; k <= s.width; k++ {
			var batch []*job
			var want [][16]byte
			for i := range k {
				b := data(uint64(1000*k+i), 64*(i*37%11+1)+Chunk*(i%3))
				d := NewDigest()
				d.svc = s
				batch = append(batch, &job{d: d, p: b})
				want = append(want, stdSum(b))
			}
			for {
				var live []*job
				for _, q := range batch {
					if len(q.p) > 0 {
						live = append(live, q)
					}
				}
				if len(live) == 0 {
					break
				}
				s.hash(live)
			}
			for i, q := range batch {
				var got [16]byte
				q.d.len = uint64(len(data(uint64(1000*k+i), 64*(i*37%11+1)+Chunk*(i%3))))
				copy(got[:], q.d.Sum(nil))
				require.Equal(t, want[i], got, "width %d, stream %d, halves %v", k, i, halves)
			}
		}
		require.Positive(t, s.stats.batches.Load())
	}
}

// A state saved mid-stream by either implementation goes on in the other
// and gives crypto/md5's digest: checkpoints of an older dit resume, and
// a Digest's checkpoint resumes anywhere.
func TestStateAcrossImplementations(t *testing.T) {
	b := data(7, 3<<20+77)
	want := stdSum(b)
	for _, cut := range []int{0, 1, 63, 64, 100, Chunk + 5, 2 << 20} {
		d := NewDigest()
		d.Write(b[:cut])
		st, err := d.MarshalBinary()
		require.NoError(t, err)
		s := md5.New()
		require.NoError(t, s.(encoding.BinaryUnmarshaler).UnmarshalBinary(st), "crypto/md5 takes a Digest's state at %d", cut)
		std, err := s.(encoding.BinaryMarshaler).MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, std, st, "the same bytes as crypto/md5's state at %d", cut)
		s.Write(b[cut:])
		require.Equal(t, want[:], s.Sum(nil), "crypto/md5 from a Digest's state at %d", cut)

		d2 := NewDigest()
		require.NoError(t, d2.UnmarshalBinary(std))
		d2.Write(b[cut:])
		require.Equal(t, want[:], d2.Sum(nil), "a Digest from crypto/md5's state at %d", cut)
	}
	require.Error(t, NewDigest().UnmarshalBinary([]byte("sha\x03")))
	require.Error(t, NewDigest().UnmarshalBinary([]byte("md5\x01short")))
}

// Sum does not end the stream, Reset starts a new one.
func TestSumThenGoOnAndReset(t *testing.T) {
	b := data(9, 200<<10)
	d := NewDigest()
	d.Write(b[:1000])
	require.Equal(t, stdSum(b[:1000]), [16]byte(d.Sum(nil)))
	d.Write(b[1000:])
	require.Equal(t, stdSum(b), [16]byte(d.Sum(nil)))
	d.Reset()
	d.Write(b[:5])
	require.Equal(t, stdSum(b[:5]), [16]byte(d.Sum(nil)))
	require.Equal(t, []byte("x"), d.Sum([]byte("x"))[:1], "Sum appends")
}

func TestDescribe(t *testing.T) {
	got := Describe()
	switch {
	case svc.halves:
		require.Equal(t, fmt.Sprintf("md5: %s, %d lanes (2 x 8)", svc.kind, Lanes()), got)
	case Lanes() > 0:
		require.Equal(t, fmt.Sprintf("md5: %s, %d lanes", svc.kind, Lanes()), got)
	default:
		require.Contains(t, got, "md5: crypto/md5 (")
	}
	t.Log(got)
}

// Any bytes, written in any two pieces, with up to three other streams
// hashing at the same time, hash as crypto/md5.
func FuzzLanes(f *testing.F) {
	f.Add([]byte{}, uint16(0), uint8(0))
	f.Add([]byte("abc"), uint16(1), uint8(1))
	f.Add(bytes.Repeat([]byte{0x80}, 64), uint16(64), uint8(3))
	f.Add(data(11, 3*Chunk+1), uint16(Chunk-1), uint8(2))
	f.Add(data(12, 5000), uint16(4000), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, cut uint16, others uint8) {
		c := min(int(cut), len(b))
		want := stdSum(b)
		var wg sync.WaitGroup
		for i := range int(others % 4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := append(bytes.Clone(b), byte(i))
				if got := laneSum(t, o, 4096+i); got != stdSum(o) {
					t.Errorf("other stream %d: %x, crypto/md5 %x", i, got, stdSum(o))
				}
			}()
		}
		d := NewDigest()
		d.Write(b[:c])
		d.Write(b[c:])
		wg.Wait()
		require.Equal(t, want[:], d.Sum(nil))
	})
}
