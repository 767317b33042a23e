//go:build linux || darwin

// Package fusemount serves a dit array as a read-only FUSE filesystem, so
// editing software can open the clips in place. Every read goes through the
// array's checked reader: verified bytes (rebuilt from parity when a blade
// is missing or lies) or EIO, never wrong bytes. Linux, and macOS with
// macFUSE. Where an array is mounted by default, and how dit finds a
// mounted array, is raid/mountplace.
package fusemount

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

type root struct {
	fs.Inode
	a *raid.Array
}

var _ fs.NodeOnAdder = (*root)(nil)

func (r *root) OnAdd(ctx context.Context) {
	dirs := map[string]*fs.Inode{"": &r.Inode}
	var mkdir func(p string) *fs.Inode
	mkdir = func(p string) *fs.Inode {
		if n, ok := dirs[p]; ok {
			return n
		}
		parent := mkdir(strings.TrimSuffix(path.Dir(p), "."))
		if path.Dir(p) == "." {
			parent = &r.Inode
		}
		n := parent.NewPersistentInode(ctx, &fs.Inode{}, fs.StableAttr{Mode: fuse.S_IFDIR})
		parent.AddChild(path.Base(p), n, true)
		dirs[p] = n
		return n
	}
	for _, m := range r.a.Files() {
		if m.Dir {
			mkdir(m.Path)
			continue
		}
		d := path.Dir(m.Path)
		if d == "." {
			d = ""
		}
		parent := mkdir(d)
		n := parent.NewPersistentInode(ctx, &file{a: r.a, m: m}, fs.StableAttr{Mode: fuse.S_IFREG})
		parent.AddChild(path.Base(m.Path), n, true)
	}
}

type file struct {
	fs.Inode
	a *raid.Array
	m *raid.Manifest
}

var _ = (fs.NodeGetattrer)((*file)(nil))
var _ = (fs.NodeOpener)((*file)(nil))

func (f *file) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = fuse.S_IFREG | 0o444
	out.Size = uint64(f.m.Size)
	mt := time.Unix(0, f.m.MtimeNs)
	out.SetTimes(nil, &mt, &mt)
	return 0
}

func (f *file) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC|syscall.O_APPEND) != 0 {
		return nil, 0, syscall.EROFS
	}
	r, err := f.a.OpenFile(f.m.Path, false)
	if err != nil {
		return nil, 0, syscall.ENOENT
	}
	return &handle{r: r}, fuse.FOPEN_KEEP_CACHE, 0
}

type handle struct {
	mu sync.Mutex
	r  *raid.FileReader
}

var _ = (fs.FileReader)((*handle)(nil))
var _ = (fs.FileReleaser)((*handle)(nil))

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, err := h.r.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:n]), 0
}

func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.r.Close()
	return 0
}

// Server is a mounted array.
type Server struct{ s *fuse.Server }

// Unmount unmounts and waits for the server to stop.
func (s *Server) Unmount() error {
	err := s.s.Unmount()
	s.s.Wait()
	return err
}

// Mount serves a read-only at dir (which must exist), with the file-system
// name mountplace.FSName(its UUID): how dit find and the reports know
// where the array's files can be opened. As root it mounts
// directly; otherwise it needs fusermount (Linux) or macFUSE (macOS).
func Mount(a *raid.Array, dir string) (*Server, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("mount point %s is not a folder", dir)
	}
	sb := a.Superblock()
	opts := &fs.Options{MountOptions: fuse.MountOptions{FsName: mountplace.FSName(sb.ArrayUUID), Name: "dit",
		DirectMount: os.Geteuid() == 0, Options: []string{"ro"}}}
	s, err := fs.Mount(dir, &root{a: a}, opts)
	if err != nil {
		return nil, fmt.Errorf("mounting the array at %s: %w (FUSE needs /dev/fuse and root, fusermount or macFUSE)", dir, err)
	}
	return &Server{s: s}, nil
}
