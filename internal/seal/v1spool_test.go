package seal

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/format/mhlv1"
	"github.com/dit-org/dit/internal/hashing"
)

// The MHL v1.1 list is written to its spool as the seal's walk gives the
// files: the spool holds nothing a file (before, every file's entry and
// then the list's whole text, ~650 B a file), and gives back the whole
// list, every file with its hashes, as often as it is written.
func TestV1SpoolHoldsNothingAFile(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own")
	}
	const n = 100000
	at := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	algos := []hashing.Algo{hashing.MD5, hashing.XXH64}
	name := func(i int) string { return fmt.Sprintf("A001C%03d/A001C%03d.%07d.ari", i/1000, i/1000, i) }
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	s := newV1Spool(&mhlv1.List{Username: "dit", Hostname: "cart", Tool: "dit test", Start: at, Finish: at})
	defer s.close()
	for i := range n {
		rel := name(i)
		s.add(mhlv1.File{Path: rel, Size: int64(len(rel)), Mtime: at, Sums: hashing.Bytes(algos, []byte(rel)), HashDate: at})
	}
	s.add(mhlv1.File{Path: "empty.txt", Mtime: at, HashDate: at})
	runtime.GC()
	runtime.ReadMemStats(&b)
	held := int64(b.HeapAlloc) - int64(a.HeapAlloc)
	t.Logf("%d files in the spool: %d B held", n, held)
	if s.f == nil {
		t.Fatal("no temporary file: the list was kept in memory")
	}
	if held > 2<<20 {
		t.Fatalf("the spool holds %d B for %d files (want < 2 MiB: its buffer, not the files)", held, n)
	}
	for range 2 { // written again after a crash's redo: the same list
		var out bytes.Buffer
		if err := s.writeTo(&out); err != nil {
			t.Fatal(err)
		}
		i := 0
		h, err := mhlv1.Read(&out, func(e *mhlv1.Entry) error {
			rel := name(i)
			want := hashing.Bytes(algos, []byte(rel))
			if e.Path != rel || e.Size != int64(len(rel)) || len(e.Values) != 2 ||
				e.Values[0].Text != want.Get(hashing.MD5) || e.Values[1].Text != want.Get(hashing.XXH64) {
				return fmt.Errorf("entry %d: %+v, want %s with %v", i, e, rel, want)
			}
			i++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i != n || h.EmptyCount != 1 || h.Empty[0] != "empty.txt" {
			t.Fatalf("read back %d files (want %d), empty %d %v", i, n, h.EmptyCount, h.Empty)
		}
	}
}
