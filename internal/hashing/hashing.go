package hashing

import (
	"crypto/sha1"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/zeebo/blake3"
	"github.com/zeebo/xxh3"

	"github.com/dit-org/dit/internal/hashing/lanes"
)

// Algo names one checksum algorithm.
type Algo uint8

// The algorithms dit computes. The order is the ASC MHL order of hash
// elements (c4, md5, sha1, xxh128, xxh3, xxh64) followed by blake3, which
// ASC MHL does not define.
const (
	C4 Algo = iota
	MD5
	SHA1
	XXH128
	XXH3
	XXH64
	BLAKE3
	numAlgos
)

// All lists every algorithm in canonical order.
var All = []Algo{C4, MD5, SHA1, XXH128, XXH3, XXH64, BLAKE3}

type algoInfo struct {
	name string
	// speed is a rank: higher is faster per core. Used to pick the cheapest
	// hash for read-back verification.
	speed int
	asc   bool
	new   func() hash.Hash
}

var infos = [numAlgos]algoInfo{
	C4:     {"c4", 1, true, sha512.New},
	MD5:    {"md5", 3, true, lanes.New},
	SHA1:   {"sha1", 2, true, sha1.New},
	XXH128: {"xxh128", 9, true, func() hash.Hash { return xxh3.New128() }},
	XXH3:   {"xxh3", 10, true, func() hash.Hash { return xxh3.New() }},
	XXH64:  {"xxh64", 8, true, func() hash.Hash { return xxhash.New() }},
	BLAKE3: {"blake3", 5, false, func() hash.Hash { return blake3.New() }},
}

// String returns the algorithm's name as used on the command line, in the
// catalog and in ASC MHL.
func (a Algo) String() string {
	if a >= numAlgos {
		return fmt.Sprintf("algo(%d)", uint8(a))
	}
	return infos[a].name
}

// InASCMHL reports whether ASC MHL v2.0 defines a hash element for a.
func (a Algo) InASCMHL() bool { return a < numAlgos && infos[a].asc }

// New returns a fresh hash.Hash for a. Its Sum output is the raw digest that
// [Encode] turns into text.
func (a Algo) New() hash.Hash { return infos[a].new() }

// MD5Implementation says how this process computes MD5, for dit version
// and a job's log: "md5: AVX-512, 16 lanes", "md5: AVX2, 8 lanes" (the
// streams hashing at one moment share the CPU's vector lanes, see
// internal/hashing/lanes), or "md5: crypto/md5 (no AVX2)" and
// "md5: crypto/md5 (arm64)" where there are none.
func MD5Implementation() string { return lanes.Describe() }

// Parse returns the algorithm named s ("md5", "xxh64", ...).
func Parse(s string) (Algo, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "xxhash64", "xxhash64be", "xxhash":
		s = "xxh64"
	case "sha-1":
		s = "sha1"
	case "xxh3_64", "xxh3-64":
		s = "xxh3"
	}
	for a := Algo(0); a < numAlgos; a++ {
		if infos[a].name == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown hash %q: choose from %s", s, Names(All))
}

// ParseList parses a comma-separated list such as "xxh64,md5". The result is
// de-duplicated and in canonical order; an empty list is an error.
func ParseList(s string) ([]Algo, error) {
	var seen [numAlgos]bool
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		a, err := Parse(part)
		if err != nil {
			return nil, err
		}
		seen[a] = true
	}
	var out []Algo
	for a := Algo(0); a < numAlgos; a++ {
		if seen[a] {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no hash selected in %q: choose one or more of %s", s, Names(All))
	}
	return out, nil
}

// Names joins the names of algos with commas.
func Names(algos []Algo) string {
	n := make([]string, len(algos))
	for i, a := range algos {
		n[i] = a.String()
	}
	return strings.Join(n, ",")
}

// Fastest returns the algorithm of algos that costs the least CPU per byte:
// the one read-back verification recomputes by default.
func Fastest(algos []Algo) Algo {
	best := algos[0]
	for _, a := range algos[1:] {
		if infos[a].speed > infos[best].speed {
			best = a
		}
	}
	return best
}

// SortBySpeed returns a copy of algos, slowest first. Starting the slowest
// hash first on each block shortens the critical path.
func SortBySpeed(algos []Algo) []Algo {
	out := append([]Algo(nil), algos...)
	sort.SliceStable(out, func(i, j int) bool { return infos[out[i]].speed < infos[out[j]].speed })
	return out
}

// Encode renders a raw digest from a.New().Sum(nil) in the ASC MHL text form.
func Encode(a Algo, sum []byte) string {
	switch a {
	case C4:
		return EncodeC4(sum)
	case XXH128:
		// zeebo/xxh3's Hasher128.Sum appends Hi then Lo, big-endian: the
		// canonical XXH128 representation.
		return hex.EncodeToString(sum)
	case XXH64, XXH3:
		return fmt.Sprintf("%016x", binary.BigEndian.Uint64(sum))
	default:
		return hex.EncodeToString(sum)
	}
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// EncodeC4 turns a SHA-512 digest into a C4 ID (SMPTE ST 2114): "c4" and
// the base58 encoding of the digest, left-padded with '1' to 90 characters.
func EncodeC4(sha512sum []byte) string {
	n := new(big.Int).SetBytes(sha512sum)
	radix := big.NewInt(58)
	mod := new(big.Int)
	out := make([]byte, 88)
	for i := range out {
		out[i] = '1'
	}
	for i := 87; i >= 0 && n.Sign() > 0; i-- {
		n.DivMod(n, radix, mod)
		out[i] = base58Alphabet[mod.Int64()]
	}
	return "c4" + string(out)
}

// DecodeC4 turns a C4 ID back into its 64-byte SHA-512 digest.
func DecodeC4(id string) ([]byte, error) {
	if len(id) != 90 || !strings.HasPrefix(id, "c4") {
		return nil, fmt.Errorf("invalid c4 id %q: want 90 characters starting with c4", id)
	}
	n := new(big.Int)
	radix := big.NewInt(58)
	for _, c := range []byte(id[2:]) {
		v := strings.IndexByte(base58Alphabet, c)
		if v < 0 {
			return nil, fmt.Errorf("invalid c4 id %q: %q is not base58", id, c)
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(v)))
	}
	b := n.Bytes()
	if len(b) > 64 {
		return nil, fmt.Errorf("invalid c4 id %q: value too large", id)
	}
	out := make([]byte, 64)
	copy(out[64-len(b):], b)
	return out, nil
}

// Sums holds the text form of each computed algorithm; the empty string
// means "not computed".
type Sums [numAlgos]string

// Get returns the text digest of a, or "" if it was not computed.
func (s Sums) Get(a Algo) string { return s[a] }

// Set records the text digest of a.
func (s *Sums) Set(a Algo, v string) { s[a] = v }

// Algos lists the algorithms that have a value, in canonical order.
func (s Sums) Algos() []Algo {
	var out []Algo
	for a := Algo(0); a < numAlgos; a++ {
		if s[a] != "" {
			out = append(out, a)
		}
	}
	return out
}

// Compare checks every algorithm present in both s and other. It returns
// the algorithms compared and the first one that differs (ok is false then).
// Comparing nothing is not a match: ok is false when no algorithm is common.
func (s Sums) Compare(other Sums) (compared []Algo, mismatch Algo, ok bool) {
	for a := Algo(0); a < numAlgos; a++ {
		if s[a] == "" || other[a] == "" {
			continue
		}
		compared = append(compared, a)
		if s[a] != other[a] {
			return compared, a, false
		}
	}
	return compared, 0, len(compared) > 0
}

// Reader hashes what r gives, to its end, with every algorithm in algos
// on the calling goroutine, a block at a time (a file of any size held
// as 64 KiB); it returns the sums and the bytes read. For files the
// pipeline does not copy (hash lists); the pipeline uses [Multi].
func Reader(algos []Algo, r io.Reader) (Sums, int64, error) {
	hs := make([]hash.Hash, len(algos))
	ws := make([]io.Writer, len(algos))
	for i, a := range algos {
		hs[i] = a.New()
		ws[i] = hs[i]
	}
	n, err := io.CopyBuffer(io.MultiWriter(ws...), r, make([]byte, 64<<10))
	var s Sums
	if err != nil {
		return s, n, err
	}
	for i, a := range algos {
		s[a] = Encode(a, hs[i].Sum(nil))
	}
	return s, n, nil
}

// Bytes hashes b with every algorithm in algos, on the calling goroutine.
// For tests and small inputs; the pipeline uses [Multi].
func Bytes(algos []Algo, b []byte) Sums {
	var s Sums
	for _, a := range algos {
		h := a.New()
		h.Write(b)
		s[a] = Encode(a, h.Sum(nil))
	}
	return s
}
