// Package speedtest measures what a card, a destination folder, a blade
// and a dit array actually sustain, so the planner can use measured rates
// instead of tables, and a cache that runs out is seen rather than
// guessed.
//
// A test moves Size bytes in Block-sized I/Os from Streams streams at
// once (several cards offloaded together) and times every I/O:
//
//   - [RunFolder]: writes test files (random, incompressible bytes) into
//     the folder, makes them durable, reads them back, removes them.
//   - [RunCard]: reads a camera card's own files, the largest first; never
//     creates, writes or removes anything there, and opens every file
//     read-only without updating access times where the system allows.
//   - [RunArray]: each blade of a dit array as a folder, then the array
//     as a whole through its own writer (parity, chunk flushes, commit)
//     and its checked reader, as an offload and its read-back use it.
//
// The page cache is kept out: O_DIRECT on Linux (reads and writes),
// F_NOCACHE on macOS. Where a filesystem refuses (some FUSE and network
// filesystems) the test writes through the cache but flushes and drops it
// every 64 MiB and reads after dropping it, and each [Phase] says so in
// Cache (Direct false); a folder in memory (tmpfs) is said to be one.
// The default Size is more than the machine's memory and more than the
// media's likely caches (16 GB a blade: an NVMe blade's SLC cache is 2-4
// GB and grows with free space), so the sustained rate is what is seen.
//
// Each phase's curve cuts its bytes into 100 equal parts and gives each
// part's rate (from the completion times of the I/Os around it): a curve
// by position, so a drive's cache running out shows where, in bytes. The
// [Cliff] is the split of the curve into a faster and a slower part that
// fits it best, kept only when the drop lasts: the slower part is at most
// 60 % of the faster, its median at most 70 % of the median before, it
// runs to the end of the test over at least 10 % of it (10 parts of 100;
// 5 at least), and the rest of the curve stays below (at most 10 % of its
// parts come back up to the middle of the two medians). One slow sample,
// a few slow ones at the end, a slow first block and load that comes and
// goes are not cliffs. A folder held in memory (tmpfs, ramfs) has no
// cache to run out: no cliff is ever said there, whatever the curve does.
//
// Each phase's [Phase.Spread] is how much its rate varied between samples:
// the coefficient of variation (standard deviation over mean) of the
// rates of up to 100 equal samples of at least 4 I/Os each, about each
// level when there is a cliff (a test of fewer than 40 I/Os is not
// judged). Above [MaxSpread] (25 %) the machine was busy or the medium
// unsteady: the result is shown but [Keep] does not record it for the
// planner, and says why ([NoisyError]: "not stored: the rate varied by
// 38 % between samples (read); run it again on a quiet machine"). On
// this project's 2-core VM, 1 GB tests gave 9-19 % quiet and 28-45 % with
// both cores busy.
//
// Free space is checked before anything is written. Test files are named
// .dit-speedtest-PID-N.tmp and removed on every way out (an error, a
// stop, a panic); a run killed outright leaves them, and the next test in
// that folder (or on that array) removes those whose process is gone.
package speedtest
