package lanes

import (
	"crypto/md5"
	"fmt"
	"testing"
)

// BenchmarkKernel compares the 8-lane and the 16-lane kernel for a batch
// of k streams (bytes of all streams per second); width=8 with more than
// 8 streams is the 8-lane kernel twice (the service's halves).
func BenchmarkKernel(b *testing.B) {
	if Lanes() == 0 {
		b.Skip("no vector lanes: " + Describe())
	}
	for _, k := range []int{2, 4, 8, 16} {
		for _, w := range []int{8, 16} {
			if w > Lanes() || k > 8 && Lanes() < 16 {
				continue
			}
			b.Run(fmt.Sprintf("streams=%d/width=%d", k, w), func(b *testing.B) {
				ps := make([][]byte, k)
				st := make([][4]uint32, k)
				for i := range ps {
					ps[i] = data(uint64(i), Chunk)
				}
				b.SetBytes(int64(k * Chunk))
				for b.Loop() {
					switch {
					case w == 16 && k <= 8:
						kernel16(st, ps, Chunk)
					case w == 8 && k > 8:
						batchKernel(st, ps, Chunk, 16, true)
					default:
						kernel(st, ps, Chunk, w)
					}
				}
			})
		}
	}
}

// BenchmarkStdlib is the baseline: crypto/md5, one stream.
func BenchmarkStdlib(b *testing.B) {
	p := data(1, Chunk)
	h := md5.New()
	b.SetBytes(Chunk)
	for b.Loop() {
		h.Write(p)
	}
}
