package hashing

import (
	"encoding"
	"fmt"
	"hash"

	"github.com/zeebo/blake3"
	"github.com/zeebo/xxh3"
)

// States are hashers part way through a stream, by algorithm: what a
// mid-file resume keeps of a prefix already hashed.
type States map[Algo]hash.Hash

// Marshalable reports whether a's hasher can save its state as bytes and
// restore it (encoding.BinaryMarshaler and BinaryUnmarshaler): md5, sha1,
// c4 (sha512) and xxh64 (cespare/xxhash) can; xxh3, xxh128 (zeebo/xxh3)
// and blake3 (zeebo/blake3) cannot.
func Marshalable(a Algo) bool {
	h := a.New()
	_, m := h.(encoding.BinaryMarshaler)
	_, u := h.(encoding.BinaryUnmarshaler)
	return m && u
}

// AllMarshalable reports whether every algorithm of algos is Marshalable.
func AllMarshalable(algos []Algo) bool {
	for _, a := range algos {
		if !Marshalable(a) {
			return false
		}
	}
	return len(algos) > 0
}

// Marshal saves h's state (h a hasher of a Marshalable algorithm).
func Marshal(h hash.Hash) ([]byte, error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, fmt.Errorf("hashing: %T cannot save its state", h)
	}
	return m.MarshalBinary()
}

// Unmarshal returns a hasher of a restored to the state b (from Marshal).
func Unmarshal(a Algo, b []byte) (hash.Hash, error) {
	h := a.New()
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok {
		return nil, fmt.Errorf("hashing: %s cannot restore a state", a)
	}
	if err := u.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("hashing: %s state: %w", a, err)
	}
	return h, nil
}

// Clone returns an independent hasher in h's state, in memory: through
// its saved state where the algorithm has one, a copy of the struct for
// zeebo/xxh3's hashers (arrays and a pointer to the shared constant
// secret only), blake3's Clone. ok is false for any other hasher.
func Clone(h hash.Hash) (hash.Hash, bool) {
	switch x := h.(type) {
	case *xxh3.Hasher:
		c := *x
		return &c, true
	case *xxh3.Hasher128:
		c := *x
		return &c, true
	case *blake3.Hasher:
		return x.Clone(), true
	}
	b, err := Marshal(h)
	if err != nil {
		return nil, false
	}
	for a := Algo(0); a < numAlgos; a++ {
		n := a.New()
		if fmt.Sprintf("%T", n) != fmt.Sprintf("%T", h) {
			continue
		}
		if u, ok := n.(encoding.BinaryUnmarshaler); ok && u.UnmarshalBinary(b) == nil {
			return n, true
		}
	}
	return nil, false
}

// Clone returns an independent copy of every hasher of s (nil if one
// cannot be cloned).
func (s States) Clone() States {
	out := States{}
	for a, h := range s {
		c, ok := Clone(h)
		if !ok {
			return nil
		}
		out[a] = c
	}
	return out
}

// Covers reports whether s has a hasher of every algorithm of algos.
func (s States) Covers(algos []Algo) bool {
	for _, a := range algos {
		if s[a] == nil {
			return false
		}
	}
	return len(algos) > 0
}

// NewStates returns fresh hashers of algos.
func NewStates(algos []Algo) States {
	s := States{}
	for _, a := range algos {
		s[a] = a.New()
	}
	return s
}

// Write hashes p with every hasher of s.
func (s States) Write(p []byte) {
	for _, h := range s {
		h.Write(p)
	}
}
