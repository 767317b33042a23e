package offload

import "github.com/dit-org/dit/internal/hashing"

// filesInFlight is how many consecutive files of a card are hashed and
// written at once behind the card's one reader (its read-ahead). The
// card is still read once, file after file, at its sequential rate; a
// file read whole goes on being hashed (by its own hashers: hashRing)
// and written while the reader reads the next ones, so a card keeps up
// to this many MD5 streams busy and the process's MD5 service
// (internal/hashing/lanes) has enough of them to fill its vector lanes.
// The card's pool holds filesInFlight x Buffers blocks (32 MiB with the
// defaults), allocated as the read-ahead needs them: a card of one big
// file uses about Buffers of them.
const filesInFlight = 4

// hashRing is a card's hashers: one hashing.Multi per file in flight,
// each file taking the next in turn. A Multi hashes its files in the
// order they were read (a file's blocks queue behind the end of the
// file before it on the same Multi), so every file has hashers of its
// own from its first byte to its digest, and a file's state (a
// checkpoint's snapshot, a resume's seed, a restart's reset) is its own
// Multi's. Used by the card's reader goroutine only.
type hashRing struct {
	ms   []*hashing.Multi
	next int
}

// newHashRing starts n Multis of algos, each with queue blocks waiting
// at most per algorithm.
func newHashRing(algos []hashing.Algo, queue, n int) *hashRing {
	r := &hashRing{ms: make([]*hashing.Multi, max(n, 1))}
	for i := range r.ms {
		r.ms[i] = hashing.NewMulti(algos, queue)
	}
	return r
}

// take returns the hashers of the next file read.
func (r *hashRing) take() *hashing.Multi {
	m := r.ms[r.next]
	r.next = (r.next + 1) % len(r.ms)
	return m
}

// close waits for every queued block and stops the hashers.
func (r *hashRing) close() {
	for _, m := range r.ms {
		m.Close()
	}
}
