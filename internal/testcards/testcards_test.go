package testcards

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testSize = 20_000_000

// entry is what we know about one path in a generated tree.
type entry struct {
	dir   bool
	size  int64
	mtime time.Time
	sum   string // sha256 of a regular file
}

// scan walks root and returns every entry below it (and "." for root),
// keyed by slash-separated relative path.
func scan(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{dir: d.IsDir(), mtime: fi.ModTime()}
		switch {
		case d.IsDir():
		case d.Type().IsRegular():
			e.size = fi.Size()
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			e.sum = hex.EncodeToString(h.Sum(nil))
		default:
			t.Errorf("%s: unexpected file type %v", rel, d.Type())
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isJunk(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if strings.HasPrefix(el, ".") && el != "." {
			return true
		}
	}
	return false
}

func generate(t *testing.T, o Options) []Card {
	t.Helper()
	cards, err := Generate(context.Background(), o)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", o, err)
	}
	return cards
}

func TestDeterministic(t *testing.T) {
	for _, style := range []string{StyleClips, StyleFrames} {
		t.Run(style, func(t *testing.T) {
			o := Options{Cards: 2, Size: testSize / 2, Style: style, Seed: 42}
			o.Out = t.TempDir()
			a := generate(t, o)
			o.Out = t.TempDir()
			b := generate(t, o)
			if len(a) != 2 || len(b) != 2 {
				t.Fatalf("got %d and %d cards, want 2", len(a), len(b))
			}
			for i := range a {
				if a[i].Label != b[i].Label || a[i].Files != b[i].Files || a[i].Bytes != b[i].Bytes {
					t.Errorf("card %d differs: %+v vs %+v", i, a[i], b[i])
				}
				ta, tb := scan(t, a[i].Path), scan(t, b[i].Path)
				if len(ta) != len(tb) {
					t.Errorf("%s: %d entries vs %d", a[i].Label, len(ta), len(tb))
				}
				for rel, ea := range ta {
					eb, ok := tb[rel]
					if !ok {
						t.Errorf("%s: %s missing from second run", a[i].Label, rel)
						continue
					}
					if ea != eb {
						t.Errorf("%s: %s differs: %+v vs %+v", a[i].Label, rel, ea, eb)
					}
				}
			}

			// A different seed gives different footage.
			o.Out, o.Seed = t.TempDir(), 43
			c := generate(t, o)
			seen := map[string]bool{}
			for _, e := range scan(t, a[0].Path) {
				if e.size > 1000 {
					seen[e.sum] = true
				}
			}
			for rel, e := range scan(t, c[0].Path) {
				if e.size > 1000 && seen[e.sum] {
					t.Errorf("seed 43: %s has the same content as a file from seed 42", rel)
				}
			}
		})
	}
}

func TestCardsDifferFromEachOther(t *testing.T) {
	cards := generate(t, Options{Out: t.TempDir(), Cards: 2, Size: 1_000_000, Seed: 1})
	sums := map[string]string{}
	for _, c := range cards {
		for rel, e := range scan(t, c.Path) {
			if e.size > 1000 {
				if other, ok := sums[e.sum]; ok {
					t.Errorf("%s/%s has the same content as %s", c.Label, rel, other)
				}
				sums[e.sum] = c.Label + "/" + rel
			}
		}
	}
}

// checkCommon checks what every card has, and that Files and Bytes match
// the non-junk regular files on disk. It returns the tree.
func checkCommon(t *testing.T, c Card) map[string]entry {
	t.Helper()
	tree := scan(t, c.Path)
	files, total := 0, int64(0)
	for rel, e := range tree {
		if !e.dir && !isJunk(rel) {
			files++
			total += e.size
		}
	}
	if files != c.Files || total != c.Bytes {
		t.Errorf("%s: card says %d files, %d bytes; disk has %d files, %d bytes", c.Label, c.Files, c.Bytes, files, total)
	}
	if e, ok := tree["MISC/EMPTY.txt"]; !ok || e.dir || e.size != 0 {
		t.Errorf("%s: MISC/EMPTY.txt missing or not empty: %+v", c.Label, e)
	}
	for _, d := range []string{"MISC/EMPTY_DIR", ".Trashes"} {
		if e, ok := tree[d]; !ok || !e.dir {
			t.Errorf("%s: folder %s missing", c.Label, d)
		}
		if n := countUnder(tree, d); n != 0 {
			t.Errorf("%s: %s should be empty, has %d entries", c.Label, d, n)
		}
	}
	for _, f := range []string{".DS_Store", ".fseventsd/fseventsd-uuid", ".Spotlight-V100/Store-V2/psid.db"} {
		if e, ok := tree[f]; !ok || e.dir || e.size == 0 {
			t.Errorf("%s: junk file %s missing or empty", c.Label, f)
		}
	}
	dsStores, appleDoubles := 0, 0
	for rel := range tree {
		base := filepath.Base(rel)
		if base == ".DS_Store" && rel != ".DS_Store" {
			dsStores++
		}
		if strings.HasPrefix(base, "._") {
			appleDoubles++
			if _, ok := tree[strings.Replace(rel, "._", "", 1)]; !ok {
				t.Errorf("%s: AppleDouble %s has no matching file", c.Label, rel)
			}
		}
	}
	if dsStores == 0 {
		t.Errorf("%s: no .DS_Store in a subfolder", c.Label)
	}
	if appleDoubles == 0 {
		t.Errorf("%s: no AppleDouble ._ file", c.Label)
	}
	// mtimes are fixed, in 2026, and whole seconds.
	for rel, e := range tree {
		if e.mtime.Year() != 2026 || e.mtime.Nanosecond() != 0 {
			t.Errorf("%s: %s has mtime %v", c.Label, rel, e.mtime)
		}
	}
	return tree
}

func countUnder(tree map[string]entry, dir string) int {
	n := 0
	for rel := range tree {
		if strings.HasPrefix(rel, dir+"/") {
			n++
		}
	}
	return n
}

func footage(tree map[string]entry, re *regexp.Regexp) (n int, total int64) {
	for rel, e := range tree {
		if re.MatchString(rel) {
			n++
			total += e.size
		}
	}
	return n, total
}

var (
	clipRE  = regexp.MustCompile(`^CLIPS/A\d{3}C\d{3}_261122_R\d[A-Z]{2}\.mov$`)
	frameRE = regexp.MustCompile(`^XDROOT/Clip/(A\d{3}C\d{3}_261122[A-Z]{2})/A\d{3}C\d{3}_261122[A-Z]{2}\.\d{7}\.xocn$`)
)

func checkSize(t *testing.T, label string, got, want int64) {
	t.Helper()
	if diff := got - want; diff < -want/50 || diff > want/50 {
		t.Errorf("%s: %d bytes of footage, want about %d", label, got, want)
	}
}

func TestClips(t *testing.T) {
	cards := generate(t, Options{Out: t.TempDir(), Cards: 2, Size: testSize, Seed: 7})
	if len(cards) != 2 || cards[0].Label != "A001" || cards[1].Label != "A002" {
		t.Fatalf("cards = %+v", cards)
	}
	for _, c := range cards {
		if c.Path != filepath.Join(filepath.Dir(cards[0].Path), c.Label) {
			t.Errorf("%s: path %s", c.Label, c.Path)
		}
		tree := checkCommon(t, c)
		n, total := footage(tree, clipRE)
		if n < 3 || n > 8 {
			t.Errorf("%s: %d clips, want 3 to 8", c.Label, n)
		}
		checkSize(t, c.Label, total, testSize)
		checkSize(t, c.Label+" (card)", c.Bytes, testSize)
		for rel := range tree {
			if clipRE.MatchString(rel) {
				if !strings.HasPrefix(rel, "CLIPS/"+c.Label+"C") {
					t.Errorf("%s: clip %s has the wrong reel", c.Label, rel)
				}
				if e, ok := tree[strings.TrimSuffix(rel, ".mov")+".xml"]; !ok || e.size == 0 {
					t.Errorf("%s: no XML sidecar for %s", c.Label, rel)
				}
			}
		}
		if _, ok := tree["XDROOT"]; ok {
			t.Errorf("%s: clips card has XDROOT", c.Label)
		}
	}
}

func TestFrames(t *testing.T) {
	cards := generate(t, Options{Out: t.TempDir(), Cards: 1, Size: testSize, Style: StyleFrames, Seed: 7})
	c := cards[0]
	tree := checkCommon(t, c)
	n, total := footage(tree, frameRE)
	checkSize(t, c.Label, total, testSize)
	if n < 6 {
		t.Errorf("%d frames, want at least 6 (3 per clip)", n)
	}
	perClip := map[string]int{}
	for rel := range tree {
		if m := frameRE.FindStringSubmatch(rel); m != nil {
			perClip[m[1]]++
		}
	}
	if len(perClip) < 2 {
		t.Errorf("%d clips, want at least 2", len(perClip))
	}
	for clip, frames := range perClip {
		if frames < 3 {
			t.Errorf("%s: %d frames, want at least 3", clip, frames)
		}
		if _, ok := tree["XDROOT/Clip/"+clip+"/"+clip+".0000001.xocn"]; !ok {
			t.Errorf("%s: first frame is not numbered 0000001", clip)
		}
		sidecar := "XDROOT/Clip/" + clip + " M01.XML"
		if e, ok := tree[sidecar]; !ok || e.size == 0 {
			t.Errorf("sidecar %q missing", sidecar)
		}
	}
	if e, ok := tree["XDROOT/MEDIAPRO.XML"]; !ok || e.size == 0 {
		t.Error("XDROOT/MEDIAPRO.XML missing")
	}
	if _, ok := tree["CLIPS"]; ok {
		t.Error("frames card has CLIPS")
	}
}

func TestFramesTinySize(t *testing.T) {
	c := generate(t, Options{Out: t.TempDir(), Cards: 1, Size: 1000, Style: StyleFrames})[0]
	tree := checkCommon(t, c)
	n, total := footage(tree, frameRE)
	if total != 1000 {
		t.Errorf("footage = %d bytes, want exactly 1000", total)
	}
	if n < 6 {
		t.Errorf("%d frames, want at least 6", n)
	}
}

func TestMixed(t *testing.T) {
	c := generate(t, Options{Out: t.TempDir(), Cards: 1, Size: testSize, Style: StyleMixed, Seed: 3})[0]
	tree := checkCommon(t, c)
	nc, clipBytes := footage(tree, clipRE)
	nf, frameBytes := footage(tree, frameRE)
	if nc < 3 || nf < 6 {
		t.Errorf("%d clips and %d frames", nc, nf)
	}
	checkSize(t, "clips", clipBytes, testSize/2)
	checkSize(t, "frames", frameBytes, testSize/2)
	// Clip numbers continue across the two halves.
	var names []string
	for rel := range tree {
		if clipRE.MatchString(rel) || (strings.HasPrefix(rel, "XDROOT/Clip/") && tree[rel].dir) {
			names = append(names, filepath.Base(rel)[:8])
		}
	}
	sort.Strings(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("clip number %s used twice", names[i])
		}
	}
}

func TestRefusesNonEmptyCardFolder(t *testing.T) {
	out := t.TempDir()
	// An existing empty card folder is fine.
	if err := os.Mkdir(filepath.Join(out, "A001"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A non-empty one is not, and nothing is written at all.
	a002 := filepath.Join(out, "A002")
	if err := os.Mkdir(a002, 0o755); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(a002, "precious.mov")
	if err := os.WriteFile(precious, []byte("do not touch"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(context.Background(), Options{Out: out, Cards: 2, Size: 1_000_000})
	if err == nil || !strings.Contains(err.Error(), a002) || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err = %v, want a refusal naming %s", err, a002)
	}
	if b, err := os.ReadFile(precious); err != nil || string(b) != "do not touch" {
		t.Errorf("existing file changed: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "A001")); len(entries) != 0 {
		t.Errorf("A001 was written before refusing: %d entries", len(entries))
	}

	// A file where a card folder should go is refused too.
	out2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(out2, "A001"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), Options{Out: out2, Cards: 1, Size: 1000}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("err = %v, want a refusal", err)
	}

	// Generating twice into the same place is refused.
	out3 := t.TempDir()
	generate(t, Options{Out: out3, Cards: 1, Size: 1000})
	if _, err := Generate(context.Background(), Options{Out: out3, Cards: 1, Size: 1000}); err == nil {
		t.Error("second Generate into the same folder succeeded")
	}
}

func TestInvalidOptions(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{},
		{Out: dir, Cards: -1},
		{Out: dir, Cards: 1000},
		{Out: dir, Size: -5},
		{Out: dir, Style: "raw"},
	} {
		if _, err := Generate(context.Background(), o); err == nil {
			t.Errorf("Generate(%+v) succeeded", o)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("invalid options wrote %d entries", len(entries))
	}
}

func TestCancel(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cards, err := Generate(ctx, Options{Out: out, Cards: 1, Size: 1000})
	if !errors.Is(err, context.Canceled) || len(cards) != 0 {
		t.Errorf("cancelled Generate = %v, %v", cards, err)
	}

	// Cancel in the middle of a large card (100 GB: minutes of writing if
	// the cancel were ignored): it stops at its next look at the context
	// and removes the partial card. The cancel comes from the context
	// itself once Generate has looked at it a few times (before each file
	// and each 4 MiB chunk), not from a clock.
	mid := &cancelAfter{Context: context.Background(), n: 5, done: make(chan struct{})}
	_, err = Generate(mid, Options{Out: out, Cards: 1, Size: 100_000_000_000})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if asked := mid.asked.Load(); asked != mid.n+1 {
		t.Errorf("the context was asked %d times, cancelled from the %dth on: Generate went on after the cancel", asked, mid.n+1)
	}
	if _, err := os.Stat(filepath.Join(out, "A001")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial card left behind: %v", err)
	}
}

// cancelAfter is a context cancelled from the (n+1)th call of Err on.
type cancelAfter struct {
	context.Context
	n     int64
	asked atomic.Int64
	once  sync.Once
	done  chan struct{}
}

func (c *cancelAfter) Err() error {
	if c.asked.Add(1) <= c.n {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.Canceled
}

func (c *cancelAfter) Done() <-chan struct{} { return c.done }

func TestJunkIsRecognisable(t *testing.T) {
	c := generate(t, Options{Out: t.TempDir(), Cards: 1, Size: 1000, Style: StyleMixed})[0]
	tree := scan(t, c.Path)
	ds, err := os.ReadFile(filepath.Join(c.Path, ".DS_Store"))
	if err != nil || !bytes.HasPrefix(ds, dsStoreMagic) {
		t.Errorf(".DS_Store does not start with the Bud1 header")
	}
	for rel := range tree {
		if strings.Contains(rel, "._") {
			b, err := os.ReadFile(filepath.Join(c.Path, filepath.FromSlash(rel)))
			if err != nil || !bytes.HasPrefix(b, appleDoubleMagic) {
				t.Errorf("%s does not start with the AppleDouble header", rel)
			}
		}
	}
}

// BenchmarkGenerate measures generation speed; point TMPDIR at /dev/shm to
// leave the disk out of it.
func BenchmarkGenerate(b *testing.B) {
	const size = 500_000_000
	for _, style := range []string{StyleClips, StyleFrames} {
		b.Run(style, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				b.StopTimer()
				out := b.TempDir()
				b.StartTimer()
				if _, err := Generate(context.Background(), Options{Out: out, Cards: 1, Size: size, Style: style}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(out)
				b.StartTimer()
			}
		})
	}
}
