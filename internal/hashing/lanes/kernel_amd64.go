//go:build amd64 && gc && !noasm

package lanes

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	// The AVX2 and AVX-512 block functions below are md5-simd's, and its
	// package initialises the tables of constants they read.
	_ "github.com/minio/md5-simd"
)

// block8 hashes n bytes (a multiple of 64) of 8 streams at once in AVX2
// registers: state is 4 x [8]uint32 (a, b, c, d of each lane), stream i
// is at base+bufs[i] (bufs[i] <= 0: lane unused, nothing read), cache is
// 512+32 bytes of scratch. md5-simd v1.1.2's block8_amd64.s.
//
//go:linkname block8 github.com/minio/md5-simd.block8
//go:noescape
func block8(state *uint32, base uintptr, bufs *int32, cache *byte, n int)

// block16 is block8 with 16 lanes in AVX-512 registers: mask has a bit
// set for each lane in use (the others are not read).
//
//go:linkname block16 github.com/minio/md5-simd.block16
//go:noescape
func block16(state *uint32, base uintptr, ptrs *int32, mask uint64, n int)

func detect() (kind string, width int, why string) {
	switch {
	case cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ):
		// md5-simd's test: its block16 uses VANDNPD (AVX512DQ).
		return "AVX-512", 16, ""
	case cpuid.CPU.Supports(cpuid.AVX2):
		return "AVX2", 8, ""
	}
	return "", 0, "no AVX2"
}

// eightTwice says whether a batch of 9 to 16 streams is hashed faster by
// the 8-lane kernel twice than by the 16-lane one on this CPU.
func eightTwice() bool {
	return halvesFaster(cpuid.CPU.VendorID == cpuid.AMD, cpuid.CPU.Family)
}

// halvesFaster is eightTwice's rule: on AMD's family 0x19 (Zen 4, the
// only one of that family with AVX-512) a 512-bit operation runs as two
// on 256-bit units: there the 8-lane kernel twice hashes 16 streams in
// 0.76-0.79 of the 16-lane kernel's time (2026-12-04, AMD EPYC, the two
// alternated 400 times: 3.2 against 4.0 GB/s a core at the 90th
// percentile; BenchmarkKernel streams=16, width=16 and width=8). On
// Intel's AVX-512 the 16-lane kernel is the faster; later AMD families,
// not measured, keep it too.
func halvesFaster(amd bool, family int) bool { return amd && family == 0x19 }

// kernel hashes n bytes of each of ps (1 to 16 streams, each at least n
// bytes, n a multiple of 64) in lanes, from and into states. Every
// pointer must lie within maxSpan of the lowest (see span).
func kernel(states [][4]uint32, ps [][]byte, n int, width int) {
	lo := ^uintptr(0)
	for _, p := range ps {
		lo = min(lo, uintptr(unsafe.Pointer(&p[0])))
	}
	// Offsets are from 4 bytes below the lowest stream: block8 does not
	// read a lane whose offset is 0.
	base := lo - 4
	k := len(ps)
	if k <= 8 || width == 8 {
		var st [4][8]uint32
		var off [8]int32
		for i := range k {
			off[i] = int32(uintptr(unsafe.Pointer(&ps[i][0])) - base)
			for w := range 4 {
				st[w][i] = states[i][w]
			}
		}
		var cache [512 + 32]byte
		block8(&st[0][0], base, &off[0], &cache[0], n)
		for i := range k {
			for w := range 4 {
				states[i][w] = st[w][i]
			}
		}
		return
	}
	kernel16(states, ps, n)
}

// kernel16 is kernel on the 16-lane kernel, whatever the number of streams.
func kernel16(states [][4]uint32, ps [][]byte, n int) {
	lo := ^uintptr(0)
	for _, p := range ps {
		lo = min(lo, uintptr(unsafe.Pointer(&p[0])))
	}
	base := lo - 4
	k := len(ps)
	var st [4][16]uint32
	var off [16]int32
	var mask uint64
	for i := range k {
		off[i] = int32(uintptr(unsafe.Pointer(&ps[i][0])) - base)
		mask |= 1 << i
		for w := range 4 {
			st[w][i] = states[i][w]
		}
	}
	block16(&st[0][0], base, &off[0], mask, n)
	for i := range k {
		for w := range 4 {
			states[i][w] = st[w][i]
		}
	}
}

// addr is where p starts in memory.
func addr(p []byte) uintptr { return uintptr(unsafe.Pointer(&p[0])) }
