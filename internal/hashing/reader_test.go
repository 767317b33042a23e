package hashing

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// Reader gives what Bytes gives for every algorithm, at sizes across its
// block, and says a read error.
func TestReaderIsBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64 << 10, 64<<10 + 1, 300_001} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		got, read, err := Reader(All, bytes.NewReader(b))
		if err != nil || read != int64(n) {
			t.Fatalf("%d bytes: read %d, %v", n, read, err)
		}
		if want := Bytes(All, b); got != want {
			t.Fatalf("%d bytes: %v, want %v", n, got, want)
		}
	}
	bad := errors.New("card pulled")
	if _, _, err := Reader([]Algo{MD5}, io.MultiReader(bytes.NewReader([]byte("abc")), iotest{bad})); !errors.Is(err, bad) {
		t.Fatalf("a read error: %v", err)
	}
}

type iotest struct{ err error }

func (r iotest) Read([]byte) (int, error) { return 0, r.err }
