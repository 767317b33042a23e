// Package inorder reads and hashes several files at once and runs what
// follows each (its findings, its record, its report) on the caller's
// goroutine in the order the files were handed in: a check that reads
// many files reports and records as if it read them one after another,
// while the process's MD5 lanes (internal/hashing/lanes: three or more
// streams writing at once) have streams to fill. dit mhl create and dit
// mhl verify (internal/format/ascmhl, hashpool.go) and dit verify
// (internal/offload/recheck) read through it.
//
// A [Pool] has groups of workers (dit verify: one a destination, so each
// destination is read a few files at once, whatever the others do; dit
// mhl: one). A group runs at most its number of works at once, each on
// a goroutine of its own, and gives each its slot (0 to workers-1): the
// caller keeps its buffers and hashers a slot, so the memory of the
// reads is workers x what a slot holds, stated by the caller.
//
// The pool holds at most maxQueued steps (works under way, works done
// waiting for their turn, and what is queued between them with Later): a
// long file at the front keeps the caller waiting once that many are
// behind it, rather than every file after it held with its results.
//
// The works may report how far they are ([Pool.Wake], from any
// goroutine); while the caller waits in the pool, [Pool.OnWake] runs on
// its goroutine, so a caller's progress reports keep coming from one
// goroutine while a long file is read.
package inorder
