// Package lanes is the process's MD5 service: every MD5 stream of the
// process (each card's hashers, each read-back, each hash list check) is
// hashed in the CPU's vector lanes together with the other streams
// hashing at the same moment, so four cards' MD5 costs about one core,
// not four. The hashing package's MD5 hasher is a lane-backed [Digest]
// wherever the CPU has lanes ([New]); callers change nothing.
//
// # Lanes
//
// At start the CPU's flags choose the kernel (github.com/klauspost/cpuid):
// AVX-512 (F and DQ) 16 lanes, AVX2 8 lanes, else none, and [New] then
// returns crypto/md5's hasher (arm64, an x86 without AVX2): [Describe]
// says which ("md5: AVX-512, 16 lanes", "md5: crypto/md5 (arm64)"), for
// dit version and a job's log. The kernels are the assembly block
// functions of github.com/minio/md5-simd v1.1.2 (block8: AVX2, block16:
// AVX-512), linked by name (kernel_amd64.go); the scheduling around them
// is this package's, so that each stream keeps its own state (below).
// A batch of at most 8 streams runs on the 8-lane kernel even where
// AVX-512 is there: with 8 or fewer lanes filled it is 1.3-1.6 times the
// 16-lane one (BenchmarkKernel). On AMD Zen 4, whose AVX-512 runs on
// 256-bit units, a batch of more than 8 runs on the 8-lane kernel twice
// too, in 0.76-0.79 of the 16-lane kernel's time ([Describe] then says
// "16 lanes (2 x 8)"); elsewhere on the 16-lane one.
//
// # When lanes are used
//
// A stream alone is hashed by crypto/md5 on its own goroutine: one lane
// is slower than crypto/md5's one stream (0.72 against 0.80 GB/s on the
// reference machine, and a lane batch of one wastes the rest), and two
// streams in lanes cost about what two crypto/md5 streams cost per core
// (BenchmarkKernel: 2 streams in the 8-lane kernel ~1.0x crypto/md5 on
// one core), while crypto/md5 runs them on two cores. From three streams
// inside Write at once the lanes win (4 streams ~2.5x, 8 ~3.5-5x, 16
// ~4-8x crypto/md5's bytes per core-second), and every stream's whole
// blocks go to the lanes, [Chunk] (64 KiB) at a time.
//
// A stream whose Write finds three or more streams writing queues its
// blocks. The first goroutine to find no leader leads: it takes up to
// the kernel's width of queued streams (once per batch it yields, so a
// stream between two writes can join), advances them all by the
// shortest one's rest (at most Chunk), and goes on until its own stream
// is done; then it hands the lead to the stream at the front of the
// queue. So the lanes never have a goroutine of their own, and a stream
// waits at most for the batches ahead of it. The kernels read the
// callers' buffers in place (no copy): a batch's streams lie within
// 1 GiB of each other (others wait for the next batch).
//
// One leader at a time means the process's MD5 is at most one core's
// lane rate (about 2.4 GB/s with 4 streams, 4.4 with 8 and 6.6 with 16
// on the reference machine). On a machine with more cores than streams
// crypto/md5 on every core could do more with 3-8 streams: a second
// leader for a second batch is not built.
//
// # State
//
// A [Digest] keeps its own MD5 state (the four words, the partial block,
// the length) between batches, and saves and restores it in
// crypto/md5's binary format (MarshalBinary, AppendBinary,
// UnmarshalBinary): a mid-file checkpoint saved by a lane hasher resumes
// with crypto/md5 and the other way round, and a checkpoint of an older
// dit resumes in lanes. Sum is crypto/md5's own (the state handed to it).
package lanes
