//go:build linux

package faultfuse

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FS is a mounted fault-injecting loopback view of a backing folder. Its
// methods may be called from any goroutine, while the mount is in use.
type FS struct {
	tb      testing.TB
	backing string
	dir     string
	server  *fuse.Server
	done    chan struct{} // closed when the server has stopped serving
	once    sync.Once     // the unmount

	mu      sync.Mutex
	flips   map[string]map[int64]bool // rel -> offsets still to flip
	eio     map[string]map[int64]bool // rel -> offsets that always fail
	wflips  map[string]int64          // name part -> offset whose next write is stored flipped
	reads   map[string]int64          // rel -> bytes returned by reads
	fail    failure
	stall   string        // base name a rename onto which stalls; "" none
	stalled chan string   // receives the target path of each stalling rename
	release chan struct{} // closed by Release
	// failFsync: every fsync of a file fails with EIO.
	failFsync bool
	// slow: once slowAfter bytes have been written (all files), writes
	// are paced to slowRate bytes per second (a drive whose cache ran out).
	slowAfter, written int64
	slowRate           float64
	slowFrom           time.Time
}

// failure is the state of FailReadsAfter / FailAllAfter.
type failure struct {
	armed   bool
	all     bool // folders fail too (not the root's own stat)
	after   int  // opens of regular files that still succeed
	opens   int
	closed  int
	tripped bool
	trip    chan struct{} // closed when tripped
}

// Mount mounts a fault-injecting loopback view of backing at a fresh
// t.TempDir() mount point and unmounts it in t.Cleanup (a plain unmount,
// then a forced lazy one, so a test never hangs on a busy mount). It skips
// the test, saying why, when FUSE cannot be mounted here: no /dev/fuse,
// neither root nor fusermount, or the mount itself failing.
func Mount(t testing.TB, backing string) *FS {
	t.Helper()
	return MountAt(t, backing, t.TempDir())
}

// MountAt is Mount at a given mount point, an existing empty folder (say
// TEMP/A001, so a tool that names a card by its mount point sees "A001").
// The folder must outlive the mount: create it in a t.TempDir() made
// before MountAt, whose removal then runs after the unmount.
func MountAt(t testing.TB, backing, mountpoint string) *FS {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("faultfuse: /dev/fuse is not available (%v): the FUSE fault-injection tests need it", err)
	}
	direct := os.Geteuid() == 0
	if !direct && fusermount() == "" {
		t.Skip("faultfuse: not root and no fusermount/fusermount3 on PATH: cannot mount FUSE here (run as root, or install fuse3)")
	}
	abs, err := filepath.Abs(backing)
	if err != nil {
		t.Fatalf("faultfuse: %v", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		t.Fatalf("faultfuse: backing folder %s is not a folder (%v)", abs, err)
	}
	if ents, err := os.ReadDir(mountpoint); err != nil || len(ents) > 0 {
		t.Fatalf("faultfuse: mount point %s must be an existing empty folder (%v, %d entries)", mountpoint, err, len(ents))
	}
	f := &FS{
		tb:      t,
		backing: abs,
		dir:     mountpoint,
		done:    make(chan struct{}),
		flips:   map[string]map[int64]bool{},
		eio:     map[string]map[int64]bool{},
		wflips:  map[string]int64{},
		reads:   map[string]int64{},
	}
	lr := &fs.LoopbackRoot{Path: abs, Dev: uint64(st.Dev)}
	// NewNode is deprecated for NodeWrapChilder, which hands over a
	// LoopbackNode already made; node embeds one by value, so it is made
	// here.
	//lint:ignore SA1019 see above; go-fuse v2.12 still calls NewNode
	lr.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, f: f}
	}
	//lint:ignore SA1019 as above
	lr.RootNode = lr.NewNode(lr, nil, "", &st)

	zero := time.Duration(0)
	opts := &fs.Options{
		// Every lookup and stat reaches the server, so a fault shows at once.
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			DirectMount: direct, // as root: mount(2) directly, no fusermount needed
			FsName:      "faultfuse",
			Name:        "faultfuse",
			MaxWrite:    512 << 10, // a reply (data + header) fits a 1 MiB splice pipe
			Debug:       os.Getenv("FAULTFUSE_DEBUG") != "",
		},
	}
	srv, err := fs.Mount(f.dir, lr.RootNode, opts)
	if err != nil {
		t.Skipf("faultfuse: mounting FUSE at %s failed: %v (FUSE needs /dev/fuse and root or fusermount)", f.dir, err)
	}
	f.server = srv
	go func() {
		srv.Wait()
		close(f.done)
	}()
	t.Cleanup(func() { f.unmount(false) })
	return f
}

// fusermount is the path of the FUSE mount helper, "" if there is none.
func fusermount() string {
	for _, name := range []string{"fusermount3", "fusermount"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Dir is the mount point.
func (f *FS) Dir() string { return f.dir }

// Backing is the backing folder.
func (f *FS) Backing() string { return f.backing }

// clean turns a path relative to the mount into the form nodes use.
func clean(rel string) string {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == "." {
		return ""
	}
	return rel
}

// FlipBitOnFirstRead makes the first read that covers byte off of the file
// rel (relative to the mount, slash separated) return that byte with bit 0
// flipped; later reads return it correctly.
func (f *FS) FlipBitOnFirstRead(rel string, off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel = clean(rel)
	if f.flips[rel] == nil {
		f.flips[rel] = map[int64]bool{}
	}
	f.flips[rel][off] = true
}

// FlipBitOnWrite makes the next write covering byte off of a file whose
// path (relative to the mount) contains part store that byte with bit 0
// flipped (the writer's own buffer is left as it was): a destination that
// silently stores a wrong bit, under whatever temporary name the file is
// written. Once flipped, the fault is spent.
func (f *FS) FlipBitOnWrite(part string, off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wflips[part] = off
}

// beforeWrite applies the write faults to data, about to be written at off
// to rel: the data returned is what the backing file gets.
func (f *FS) beforeWrite(rel string, off int64, data []byte) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	for part, o := range f.wflips {
		if o >= off && o < off+int64(len(data)) && strings.Contains(rel, part) {
			data = append([]byte(nil), data...)
			data[o-off] ^= 1
			delete(f.wflips, part)
		}
	}
	return data
}

// EIOAt makes every read of the file rel that covers byte off fail with
// EIO.
func (f *FS) EIOAt(rel string, off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel = clean(rel)
	if f.eio[rel] == nil {
		f.eio[rel] = map[int64]bool{}
	}
	f.eio[rel][off] = true
}

// FailReadsAfter makes the filesystem stop answering for regular files
// once n of them have been opened and closed again (read), or at the
// (n+1)th open, whichever comes first (n <= 0: at once): from then on
// every open, read, lookup and stat of a regular file fails with EIO, also
// through handles already open. Folders, the root included, still list and
// stat, as the mount point of a card that stopped answering does, so a
// tool cannot tell by the root alone. Heal undoes it.
func (f *FS) FailReadsAfter(n int) { f.arm(n, false) }

// FailAllAfter is FailReadsAfter where, once tripped, folders fail too:
// every lookup, listing and stat below the root, and listing the root, fail
// with EIO; only the root's own stat still succeeds (the mount point is
// still there).
func (f *FS) FailAllAfter(n int) { f.arm(n, true) }

func (f *FS) arm(n int, all bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = failure{armed: true, all: all, after: n, trip: make(chan struct{})}
	if n <= 0 {
		f.tripLocked()
	}
}

func (f *FS) tripLocked() {
	if !f.fail.tripped {
		f.fail.tripped = true
		close(f.fail.trip)
	}
}

// Tripped is closed when the fault armed by FailReadsAfter or
// FailAllAfter trips (nil, never ready, if none is armed).
func (f *FS) Tripped() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail.trip
}

// Heal disarms FailReadsAfter / FailAllAfter: the card answers again.
func (f *FS) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = failure{}
}

// StallRename makes every rename whose target base name is name block
// until Release. The returned channel receives the target path (under
// Dir) when such a rename starts stalling (buffered; a full channel drops
// the notice). A stalled rename whose caller is killed is interrupted by
// the kernel: it then fails with EINTR and does not happen. Calling
// StallRename again replaces the rule and the channel.
func (f *FS) StallRename(name string) <-chan string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stall = name
	f.stalled = make(chan string, 16)
	if f.release == nil {
		f.release = make(chan struct{})
	}
	return f.stalled
}

// Release lets every stalled rename go on (and happen) and disarms
// StallRename: later renames run normally.
func (f *FS) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.release != nil {
		close(f.release)
		f.release = nil
	}
	f.stall = ""
}

// Disappear unmounts now, forced and lazily, as a card pulled from its
// reader: requests in flight fail, open files fail, and the mount point is
// left as an empty folder.
func (f *FS) Disappear() { f.unmount(true) }

// FailFsync makes every fsync of a file fail with EIO from now
// on (on: true), as a disk that cannot make its writes durable does.
func (f *FS) FailFsync(on bool) {
	f.mu.Lock()
	f.failFsync = on
	f.mu.Unlock()
}

// Reads is how many bytes reads of the file rel have returned so far
// (failed reads count nothing).
func (f *FS) Reads(rel string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[clean(rel)]
}

// unmount unmounts once: a plain unmount unless force (or if that fails
// or hangs), else forced and lazy; then waits for the server to stop.
func (f *FS) unmount(force bool) {
	f.once.Do(func() {
		f.Release()
		if !force {
			errc := make(chan error, 1)
			go func() { errc <- f.server.Unmount() }()
			select {
			case err := <-errc:
				if err == nil {
					f.wait()
					return
				}
			case <-time.After(5 * time.Second):
			}
		}
		if err := forceUnmount(f.dir); err != nil {
			f.tb.Logf("faultfuse: forced unmount of %s: %v", f.dir, err)
		}
		f.wait()
	})
}

func (f *FS) wait() {
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
		f.tb.Logf("faultfuse: the server of %s did not stop within 10s after the unmount", f.dir)
	}
}

// forceUnmount aborts the FUSE connection (requests in flight fail) and
// detaches the mount even while files are open.
func forceUnmount(dir string) error {
	if os.Geteuid() == 0 {
		return syscall.Unmount(dir, syscall.MNT_FORCE|syscall.MNT_DETACH)
	}
	bin := fusermount()
	if bin == "" {
		return exec.ErrNotFound
	}
	if out, err := exec.Command(bin, "-u", "-z", dir).CombinedOutput(); err != nil {
		return &os.PathError{Op: "fusermount -u -z: " + string(out), Path: dir, Err: err}
	}
	return nil
}

// opened counts an open of a regular file; EIO once the card is down.
func (f *FS) opened() syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.fail.armed {
		return 0
	}
	if f.fail.tripped {
		return syscall.EIO
	}
	f.fail.opens++
	if f.fail.opens > f.fail.after {
		f.tripLocked()
		return syscall.EIO
	}
	return 0
}

// closed counts a regular file closed after a counted open.
func (f *FS) closed(trip chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.fail.armed || f.fail.trip != trip {
		return // opened before the fault was armed (or healed since)
	}
	f.fail.closed++
	if f.fail.closed >= f.fail.after {
		f.tripLocked()
	}
}

// down says whether a node of this kind fails now.
func (f *FS) down(regular, root bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail.armed && f.fail.tripped && (regular || (f.fail.all && !root))
}

// armedTrip is the trip channel of the armed fault (nil if none).
func (f *FS) armedTrip() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.fail.armed {
		return nil
	}
	return f.fail.trip
}

// afterRead applies the read faults to b, read at off from rel.
func (f *FS) afterRead(rel string, off int64, b []byte) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	end := off + int64(len(b))
	for o := range f.eio[rel] {
		if o >= off && o < end {
			return syscall.EIO
		}
	}
	for o := range f.flips[rel] {
		if o >= off && o < end {
			b[o-off] ^= 1
			delete(f.flips[rel], o)
		}
	}
	f.reads[rel] += int64(len(b))
	return 0
}

// stallFor returns the notice channel and the release channel when a
// rename onto name must stall.
func (f *FS) stallFor(name string) (chan string, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stall == "" || name != f.stall {
		return nil, nil
	}
	return f.stalled, f.release
}

// node is a loopback node that consults its FS before each operation.
type node struct {
	fs.LoopbackNode
	f *FS
}

var (
	_ = (fs.NodeLookuper)((*node)(nil))
	_ = (fs.NodeGetattrer)((*node)(nil))
	_ = (fs.NodeStatxer)((*node)(nil))
	_ = (fs.NodeOpener)((*node)(nil))
	_ = (fs.NodeCreater)((*node)(nil))
	_ = (fs.NodeOpendirHandler)((*node)(nil))
	_ = (fs.NodeReaddirer)((*node)(nil))
	_ = (fs.NodeRenamer)((*node)(nil))
)

func (n *node) rootInode() *fs.Inode { return n.RootData.RootNode.EmbeddedInode() }

// rel is the node's path relative to the mount, slash separated.
func (n *node) rel() string { return n.Path(n.rootInode()) }

func (n *node) isRoot() bool { return n.EmbeddedInode() == n.rootInode() }

func (n *node) isRegular() bool { return n.StableAttr().Mode&syscall.S_IFMT == syscall.S_IFREG }

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if n.f.down(false, false) {
		return nil, syscall.EIO // FailAllAfter: nothing below the root answers
	}
	if n.f.down(true, false) {
		var st syscall.Stat_t
		p := filepath.Join(n.RootData.Path, n.rel(), name)
		if err := syscall.Lstat(p, &st); err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			return nil, syscall.EIO
		}
	}
	return n.LoopbackNode.Lookup(ctx, name, out)
}

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if n.f.down(n.isRegular(), n.isRoot()) {
		return syscall.EIO
	}
	return n.LoopbackNode.Getattr(ctx, fh, out)
}

func (n *node) Statx(ctx context.Context, fh fs.FileHandle, flags uint32, mask uint32, out *fuse.StatxOut) syscall.Errno {
	if n.f.down(n.isRegular(), n.isRoot()) {
		return syscall.EIO
	}
	return n.LoopbackNode.Statx(ctx, fh, flags, mask, out)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	var trip chan struct{}
	if n.isRegular() {
		trip = n.f.armedTrip()
		if errno := n.f.opened(); errno != 0 {
			return nil, 0, errno
		}
	}
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return n.f.wrap(fh, n.rel(), n.isRegular(), trip), fuseFlags | fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if n.f.down(false, false) {
		return nil, nil, 0, syscall.EIO
	}
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	rel := clean(n.rel() + "/" + name)
	return ch, n.f.wrap(fh, rel, false, nil), fuseFlags | fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.f.down(false, false) {
		return nil, 0, syscall.EIO
	}
	return n.LoopbackNode.OpendirHandle(ctx, flags)
}

func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	if n.f.down(false, false) {
		return nil, syscall.EIO
	}
	return n.LoopbackNode.Readdir(ctx)
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if notice, release := n.f.stallFor(newName); release != nil {
		target := filepath.Join(n.f.dir, filepath.FromSlash(newParent.EmbeddedInode().Path(n.rootInode())), newName)
		select {
		case notice <- target:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
			// The caller was killed (the kernel sent INTERRUPT) or the
			// mount went away: the rename never happens.
			return syscall.EINTR
		}
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

// fileOps is what a handle forwards to the loopback file: everything but
// Read (intercepted) and PassthroughFd (FUSE passthrough would let the
// kernel read the backing file directly, past every fault).
type fileOps interface {
	fs.FileReader
	fs.FileReleaser
	fs.FileGetattrer
	fs.FileWriter
	fs.FileFlusher
	fs.FileFsyncer
	fs.FileSetattrer
	fs.FileLseeker
	fs.FileAllocater
	fs.FileGetlker
	fs.FileSetlker
	fs.FileSetlkwer
}

// handle wraps a loopback file handle and intercepts Read.
type handle struct {
	ops     fileOps
	f       *FS
	rel     string
	regular bool
	trip    chan struct{} // the fault this open was counted for; nil none
}

var (
	_ = (fs.FileReader)((*handle)(nil))
	_ = (fs.FileReleaser)((*handle)(nil))
	_ = (fs.FileGetattrer)((*handle)(nil))
	_ = (fs.FileWriter)((*handle)(nil))
	_ = (fs.FileFlusher)((*handle)(nil))
	_ = (fs.FileFsyncer)((*handle)(nil))
	_ = (fs.FileSetattrer)((*handle)(nil))
	_ = (fs.FileLseeker)((*handle)(nil))
	_ = (fs.FileAllocater)((*handle)(nil))
)

func (f *FS) wrap(fh fs.FileHandle, rel string, regular bool, trip chan struct{}) fs.FileHandle {
	ops, ok := fh.(fileOps)
	if !ok {
		f.tb.Errorf("faultfuse: the loopback file handle %T lacks an operation", fh)
		return fh
	}
	return &handle{ops: ops, f: f, rel: rel, regular: regular, trip: trip}
}

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h.regular && h.f.down(true, false) {
		return nil, syscall.EIO
	}
	res, errno := h.ops.Read(ctx, dest, off)
	if errno != 0 {
		return nil, errno
	}
	b, st := res.Bytes(dest)
	res.Done()
	if !st.Ok() {
		return nil, syscall.Errno(st)
	}
	if errno := h.f.afterRead(h.rel, off, b); errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(b), 0
}

func (h *handle) Release(ctx context.Context) syscall.Errno {
	if h.trip != nil {
		h.f.closed(h.trip)
	}
	return h.ops.Release(ctx)
}

func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	if h.regular && h.f.down(true, false) {
		return syscall.EIO
	}
	return h.ops.Getattr(ctx, out)
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	data = h.f.beforeWrite(h.rel, off, data)
	if d := h.f.pace(len(data)); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return 0, syscall.EINTR
		}
	}
	return h.ops.Write(ctx, data, off)
}

func (h *handle) Flush(ctx context.Context) syscall.Errno { return h.ops.Flush(ctx) }

func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	h.f.mu.Lock()
	fail := h.f.failFsync
	h.f.mu.Unlock()
	if fail { // a file's handle (a folder's is not wrapped)
		return syscall.EIO // the data may not be on the medium: a failing disk
	}
	return h.ops.Fsync(ctx, flags)
}

func (h *handle) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return h.ops.Setattr(ctx, in, out)
}

func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.ops.Lseek(ctx, off, whence)
}

func (h *handle) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	return h.ops.Allocate(ctx, off, size, mode)
}

func (h *handle) Getlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32, out *fuse.FileLock) syscall.Errno {
	return h.ops.Getlk(ctx, owner, lk, flags, out)
}

func (h *handle) Setlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.ops.Setlk(ctx, owner, lk, flags)
}

func (h *handle) Setlkw(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.ops.Setlkw(ctx, owner, lk, flags)
}
