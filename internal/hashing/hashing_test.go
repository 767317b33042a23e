package hashing

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Published vectors: RFC 1321 (md5), FIPS 180 (sha1), the xxHash reference
// (xxh64/xxh3/xxh128 of the empty input; 16 MiB of 'X' as used by the ocopy
// test-suite), the C4 specification (empty input), the BLAKE3 reference.
var vectors = []struct {
	name  string
	input []byte
	want  map[Algo]string
}{
	{"empty", nil, map[Algo]string{
		MD5:    "d41d8cd98f00b204e9800998ecf8427e",
		SHA1:   "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		XXH64:  "ef46db3751d8e999",
		XXH3:   "2d06800538d394c2",
		XXH128: "99aa06d3014798d86001c324468d497f",
		C4:     "c459dsjfscH38cYeXXYogktxf4Cd9ibshE3BHUo6a58hBXmRQdZrAkZzsWcbWtDg5oQstpDuni4Hirj75GEmTc1sFT",
		BLAKE3: "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
	}},
	{"abc", []byte("abc"), map[Algo]string{
		MD5:    "900150983cd24fb0d6963f7d28e17f72",
		SHA1:   "a9993e364706816aba3e25717850c26c9cd0d89d",
		XXH64:  "44bc2cf5ad770999",
		BLAKE3: "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
	}},
	{"hello world", []byte("hello world"), map[Algo]string{
		XXH3: "d447b1ea40e6988b",
	}},
	{"foo", []byte("foo"), map[Algo]string{
		C4: "c45xZeXwMSpqXjpDumcHMA6mhoAmGHkUo7r9WmN2UgSEQzj9KjgseaQdkEJ11fGb5S1WEENcV3q8RFWwEeVpC7Fjk2",
	}},
	{"16MiB of X", bytes.Repeat([]byte("X"), 16<<20), map[Algo]string{
		MD5:    "3cafcbe66fcaf4f8d5174a763b7cf974",
		SHA1:   "94d3e62de071d61513dea8135995dcce57213b35",
		XXH64:  "75ba28003b6bfc18",
		XXH3:   "761e87524f56c22d",
		XXH128: "f12a2d9fe5ea3de9761e87524f56c22d",
		C4:     "c45z2pJEDXuECUXBNruZU7q4vDERZsGa2Gx7VHxQYZjqt2dEiF1FkxUxxJpqJkNZZLFQMnkUkrAVjhCR9JrGSupE1G",
	}},
}

func TestVectorsOneShot(t *testing.T) {
	for _, v := range vectors {
		got := Bytes(All, v.input)
		for a, want := range v.want {
			require.Equal(t, want, got.Get(a), "%s of %s", a, v.name)
		}
	}
}

// The pipeline path: blocks of odd sizes through Multi, every algorithm on
// its own goroutine, must give the same text as the one-shot path.
func TestVectorsMultiBlocks(t *testing.T) {
	m := NewMulti(All, 4)
	defer m.Close()
	for _, v := range vectors {
		var released atomic.Int32
		blocks := 0
		for off := 0; off < len(v.input); {
			n := min(len(v.input)-off, 1_000_003)
			m.Write(v.input[off:off+n], func() { released.Add(1) })
			off += n
			blocks++
		}
		got := m.Sum()
		require.Equal(t, int32(blocks), released.Load(), "every block released once")
		for a, want := range v.want {
			require.Equal(t, want, got.Get(a), "%s of %s", a, v.name)
		}
	}
}

// Finish lets the producer start the next stream at once; each stream's
// digests arrive on their own channel.
func TestMultiFinishPipelines(t *testing.T) {
	m := NewMulti([]Algo{MD5, XXH64, SHA1}, 2)
	defer m.Close()
	inputs := [][]byte{[]byte("abc"), nil, bytes.Repeat([]byte("X"), 16<<20)}
	var chans []<-chan Sums
	for _, in := range inputs {
		for off := 0; off < len(in); off += 1 << 20 {
			m.Write(in[off:min(off+1<<20, len(in))], nil)
		}
		chans = append(chans, m.Finish())
	}
	for i, in := range inputs {
		require.Equal(t, Bytes([]Algo{MD5, XXH64, SHA1}, in), <-chans[i], "stream %d", i)
	}
}

func TestC4RoundTrip(t *testing.T) {
	for _, v := range vectors {
		id := Bytes([]Algo{C4}, v.input).Get(C4)
		require.Len(t, id, 90)
		raw, err := DecodeC4(id)
		require.NoError(t, err)
		h := C4.New()
		h.Write(v.input)
		require.Equal(t, h.Sum(nil), raw)
	}
	_, err := DecodeC4("c4notvalid")
	require.Error(t, err)
	zero := EncodeC4(make([]byte, 64))
	require.Equal(t, "c4"+strings.Repeat("1", 88), zero)
}

func TestParseList(t *testing.T) {
	got, err := ParseList("md5, XXH64,md5")
	require.NoError(t, err)
	require.Equal(t, []Algo{MD5, XXH64}, got)
	_, err = ParseList("md5,crc32")
	require.ErrorContains(t, err, `unknown hash "crc32"`)
	require.ErrorContains(t, err, "xxh64")
	_, err = ParseList(" , ")
	require.Error(t, err)
	a, err := Parse("xxhash64be")
	require.NoError(t, err)
	require.Equal(t, XXH64, a)
}

func TestFastest(t *testing.T) {
	require.Equal(t, XXH64, Fastest([]Algo{MD5, XXH64}))
	require.Equal(t, XXH3, Fastest([]Algo{C4, XXH3, SHA1}))
	require.Equal(t, MD5, Fastest([]Algo{MD5, SHA1}))
}

func TestCompare(t *testing.T) {
	a := Bytes([]Algo{MD5, XXH64}, []byte("abc"))
	b := Bytes([]Algo{XXH64}, []byte("abc"))
	cmp, _, ok := a.Compare(b)
	require.True(t, ok)
	require.Equal(t, []Algo{XXH64}, cmp)
	c := Bytes([]Algo{XXH64}, []byte("abd"))
	_, bad, ok := a.Compare(c)
	require.False(t, ok)
	require.Equal(t, XXH64, bad)
	var none Sums
	_, _, ok = a.Compare(none)
	require.False(t, ok, "comparing nothing must not count as a match")
}

func BenchmarkMulti(b *testing.B) {
	buf := make([]byte, 4<<20)
	for _, set := range [][]Algo{{MD5}, {XXH64}, {MD5, XXH64}} {
		b.Run(Names(set), func(b *testing.B) {
			m := NewMulti(set, 4)
			defer m.Close()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				m.Write(buf, nil)
			}
			m.Sum()
		})
	}
}
