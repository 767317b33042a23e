package speedtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/faultfuse"
	"github.com/dit-org/dit/raid"
)

// noTestFiles fails when a test file is left in dir.
func noTestFiles(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	if len(m) > 0 {
		t.Errorf("test files left behind: %v", m)
	}
}

func TestFolderOnExt4BypassesTheCache(t *testing.T) {
	mnt := loopExt4(t, 160<<20, false, nil)
	name := filepath.Join(mnt, tempPrefixName(0))
	var once sync.Once
	var during float64 = -1
	o := Options{Size: 64 << 20, Block: 1 << 20, Progress: func(phase string, done, total int64) {
		if phase == "read" && done >= total/2 {
			once.Do(func() { during = resident(t, name) })
		}
	}}
	res, err := RunFolder(context.Background(), mnt, Folder, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Phase{res.Write, res.Read} {
		if !p.Direct {
			t.Errorf("%s phase not direct on ext4: %s", p.Name, p.Cache)
		}
		if p.Bytes != 64<<20 {
			t.Errorf("%s phase moved %d bytes, want %d", p.Name, p.Bytes, 64<<20)
		}
		if len(p.Curve) != DefaultParts || p.Curve[len(p.Curve)-1].At != p.Bytes {
			t.Errorf("%s curve: %d points, last at %d", p.Name, len(p.Curve), p.Curve[len(p.Curve)-1].At)
		}
	}
	// Half-way through the read, none of the file is in the page cache:
	// the rate read is the medium's.
	if during < 0 {
		t.Fatal("the read phase never reached half-way")
	}
	if during > 0.01 {
		t.Errorf("%.0f %% of the test file was in the page cache during the read", during*100)
	}
	noTestFiles(t, mnt)

	// The control: the same check sees a read through the cache.
	data := make([]byte, 32<<20)
	rand.Read(data)
	p := filepath.Join(mnt, "cached.bin")
	os.WriteFile(p, data, 0o600)
	start := time.Now()
	f, _ := os.Open(p)
	io.Copy(io.Discard, f)
	f.Close()
	cached := float64(len(data)) / time.Since(start).Seconds()
	if r := resident(t, p); r < 0.9 {
		t.Errorf("control: a read through the cache left only %.0f %% resident; the check cannot tell", r*100)
	}
	t.Logf("direct read %.0f MB/s, write %.0f MB/s; a read from the page cache %.0f MB/s",
		res.Read.Rate/1e6, res.Write.Rate/1e6, cached/1e6)
}

func tempPrefixName(i int) string {
	return tempPrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i) + ".tmp"
}

func TestFolderOnTmpfsSaysTheCacheWasNotBypassed(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		mountTmpfs(t, dir)
	}
	res, err := RunFolder(context.Background(), dir, Folder, Options{Size: 16 << 20, Streams: 2, Block: 256 << 10}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Write.Bytes != 16<<20 || res.Read.Bytes != 16<<20 || res.Streams != 2 {
		t.Errorf("moved %d/%d bytes with %d streams", res.Write.Bytes, res.Read.Bytes, res.Streams)
	}
	if os.Geteuid() == 0 && (res.Write.Direct || res.Read.Direct) {
		t.Errorf("tmpfs reported direct: %q / %q", res.Write.Cache, res.Read.Cache)
	}
	if !res.Write.Direct && res.Write.Cache == directHow {
		t.Errorf("a cached write is described as direct: %q", res.Write.Cache)
	}
	noTestFiles(t, dir)
}

func TestStoppedTestLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	o := Options{Size: 64 << 20, Block: 1 << 20, Progress: func(phase string, done, total int64) {
		if phase == "write" && done >= 8<<20 {
			cancel()
		}
	}}
	_, err := RunFolder(ctx, dir, Folder, o, 0)
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err = %v, want ErrCanceled", err)
	}
	noTestFiles(t, dir)
	// A file left by a killed run (a process that is gone) is removed by
	// the next test in that folder.
	stale := filepath.Join(dir, tempPrefix+"999999999-0.tmp")
	os.WriteFile(stale, []byte("x"), 0o600)
	res, err := RunFolder(context.Background(), dir, Folder, Options{Size: 16 << 20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) || len(res.Notes) == 0 {
		t.Errorf("stale test file not removed (notes %q)", res.Notes)
	}
}

func TestNotEnoughSpaceIsRefusedFirst(t *testing.T) {
	mnt := loopExt4(t, 64<<20, false, nil)
	_, err := RunFolder(context.Background(), mnt, Folder, Options{Size: 200 << 20}, 0)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(mnt)) || !bytes.Contains([]byte(err.Error()), []byte("--size")) {
		t.Fatalf("err = %v, want a refusal naming the folder and --size", err)
	}
	noTestFiles(t, mnt)
}

func TestCacheRunningOutIsSeenWhereItDid(t *testing.T) {
	fs := faultfuse.Mount(t, t.TempDir())
	// A drive whose cache takes 40 MiB and then writes at 4 MB/s, a tenth
	// or less of what the FUSE loopback does on a busy machine.
	const size, cut = 56 << 20, 40 << 20
	fs.SlowWritesAfter(cut, 4e6)
	res, err := RunFolder(context.Background(), fs.Dir(), Folder, Options{Size: size, Block: 1 << 20, Parts: 200}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cl := res.Write.Cliff
	if cl == nil {
		t.Fatalf("no cliff in the write curve; curve %+v", res.Write.Curve)
	}
	if d := math.Abs(float64(cl.At-cut)) / cut; d > 0.1 {
		t.Errorf("cliff at %d bytes, want %d within 10 %% (off by %.0f %%)", cl.At, cut, d*100)
	}
	if cl.After > 4e6*1.1 {
		t.Errorf("rate after the cliff %.1f MB/s, paced at 4", cl.After/1e6)
	}
	t.Logf("cliff at %.1f MB: %.0f -> %.1f MB/s; read: %.0f MB/s, cliff %v", float64(cl.At)/1e6, cl.Before/1e6, cl.After/1e6,
		res.Read.Rate/1e6, res.Read.Cliff)
	noTestFiles(t, fs.Backing())
}

func TestCardIsOnlyRead(t *testing.T) {
	clip := make([]byte, 20<<20)
	rand.Read(clip)
	mnt := loopExt4(t, 96<<20, true, func(dir string) {
		os.MkdirAll(filepath.Join(dir, "CLIPS"), 0o755)
		os.WriteFile(filepath.Join(dir, "CLIPS", "A001C001.MXF"), clip, 0o644)
		os.WriteFile(filepath.Join(dir, "CLIPS", "A001C002.MXF"), clip[:8<<20], 0o644)
	})
	before := snapshot(t, mnt)
	res, err := RunCard(context.Background(), mnt, Options{Streams: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Write != nil || res.Read == nil || res.Read.Bytes != 28<<20 {
		t.Fatalf("card test: write %v, read %+v", res.Write, res.Read)
	}
	if !res.Read.Direct {
		t.Errorf("card read not direct on ext4: %s", res.Read.Cache)
	}
	if after := snapshot(t, mnt); after != before {
		t.Errorf("the card changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshot lists a tree's names, sizes, modes and times.
func snapshot(t *testing.T, dir string) string {
	var b bytes.Buffer
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10) + " " + fi.ModTime().String() + "\n")
		return nil
	})
	return b.String()
}

func TestArrayOverFourExt4Blades(t *testing.T) {
	var blades []string
	for range 4 {
		blades = append(blades, loopExt4(t, 128<<20, false, nil))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "speed"})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	rs, err := RunArray(context.Background(), blades[0], Options{Size: 48 << 20, Block: 1 << 20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 {
		t.Fatalf("%d results, want 4 blades and the array", len(rs))
	}
	for i, r := range rs[:4] {
		if r.Kind != Blade || r.Write == nil || r.Read == nil || !r.Read.Direct || r.Write.Bytes != 16<<20 {
			t.Errorf("blade %d: %+v", i+1, r)
		}
		noTestFiles(t, blades[i])
	}
	whole := rs[4]
	if whole.Kind != Array || whole.Write.Bytes != 48<<20 || whole.Read.Bytes != 48<<20 {
		t.Fatalf("array result: %+v", whole)
	}
	// The plan looks the array up by the same id, from any blade.
	if v := PathVolume(blades[2]); v != whole.Volume {
		t.Errorf("PathVolume %q, the test recorded %q", v, whole.Volume)
	}
	// The array holds no test file afterwards, and is still sound.
	b, err := raid.Open(blades[:1], raid.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if files := b.Files(); len(files) != 0 {
		t.Errorf("the array still holds %d file(s), the first %s", len(files), files[0].Path)
	}
	if h := b.Health(); len(h.Unreadable) > 0 {
		t.Errorf("array health after the test: %+v", h)
	}
}

// stepClock is a test clock: each reading is later than the one before
// by fast for the first 30 readings of every 140, by slow for the rest.
// A test's write phase (one stream of 128 blocks: 131 readings from the
// first) then runs fast for its first 28 blocks and slow after: the curve
// of a cache that runs out.
func stepClock(fast, slow time.Duration) func() time.Time {
	var mu sync.Mutex
	t, n := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC), 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		if n%140 < 30 {
			t = t.Add(fast)
		} else {
			t = t.Add(slow)
		}
		n++
		return t
	}
}

// A folder in memory has no cache to run out: the same curve that is a
// cliff on a disk is none on tmpfs.
func TestNoCliffInMemory(t *testing.T) {
	o := Options{Size: 32 << 20, Block: 256 << 10}
	disk := t.TempDir()
	if !devices.InMemory(disk) {
		o.Now = stepClock(time.Millisecond, 5*time.Millisecond)
		res, err := RunFolder(context.Background(), disk, Folder, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Write.Cliff == nil || res.Write.Noisy() {
			t.Fatalf("control: on %s cliff %+v, spread %.2f for a clean step", disk, res.Write.Cliff, res.Write.Spread)
		}
	}
	mem := t.TempDir()
	switch {
	case os.Geteuid() == 0:
		mountTmpfs(t, mem)
	case devices.InMemory("/dev/shm"):
		mem, _ = os.MkdirTemp("/dev/shm", "speedtest-")
		t.Cleanup(func() { os.RemoveAll(mem) })
	default:
		t.Skip("no tmpfs here (mounting one needs root)")
	}
	o.Now = stepClock(time.Millisecond, 5*time.Millisecond)
	res, err := RunFolder(context.Background(), mem, Folder, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Phase{res.Write, res.Read} {
		if p.Cliff != nil || p.Direct || !strings.Contains(p.Cache, "in memory") {
			t.Errorf("%s on tmpfs: cliff %+v, direct %v, %q", p.Name, p.Cliff, p.Direct, p.Cache)
		}
	}
	// There the drop is the machine's, not a cache's: the rate varied,
	// and the result is not kept for the planner.
	if !res.Write.Noisy() || !strings.Contains(res.Noisy(), "(write)") {
		t.Errorf("a drop on tmpfs is not taken for noise: spread %.2f (%q)", res.Write.Spread, res.Noisy())
	}
	noTestFiles(t, mem)
}
