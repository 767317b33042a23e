//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing/lanes"
)

// The bare work of the 4-card job: what any program that copies and
// verifies as dit does must do, and nothing else (no catalog, no plan,
// no reports, no hash lists): each card's files read once, MD5 (in the
// lanes, 4 files of a card at once: 16 streams) and xxh64 of the bytes
// read, each copy preallocated and written, then read back with xxh64
// and compared. "read" reads and reads back with read(2), as dit does
// where O_DIRECT is not there (tmpfs); "mmap" maps the card's file and
// the copy instead, which takes the kernel's copy into the process's
// buffers off both reads. Its time against md5sum's is the floor of the
// job on the machine, whatever the program around it.

// bareTool runs this program's bare work as a process of its own, so
// that its CPU is measured as dit's is.
func bareTool(mode, dest string, cards []string) tool {
	self, err := os.Executable()
	must(err)
	return tool{
		name: "bare work (" + mode + ")",
		prep: func() error { must(os.RemoveAll(dest)); return os.MkdirAll(dest, 0o755) },
		run: func() (time.Duration, error) {
			return runAll([][]string{append([]string{self, "-bare", mode, "-dir", dest}, cards...)})
		},
	}
}

// bare is the process: every card at once, then exit.
func bare(mode, dest string, cards []string) {
	var g errgroup.Group
	for _, c := range cards {
		g.Go(func() error { return bareCard(mode, c, filepath.Join(dest, filepath.Base(c))) })
	}
	must(g.Wait())
}

func bareCard(mode, card, dest string) error {
	files, err := filepath.Glob(filepath.Join(card, "CLIPS", "*"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	sums := make([]uint64, len(files))
	// each does every file, 4 at once.
	each := func(do func(i int) error) error {
		var g errgroup.Group
		g.SetLimit(4)
		for i := range files {
			g.Go(func() error { return do(i) })
		}
		return g.Wait()
	}
	copyOne := func(i int) error {
		x, err := bareCopy(mode, files[i], filepath.Join(dest, filepath.Base(files[i])))
		sums[i] = x
		return err
	}
	check := func(i int) error {
		x, err := bareReadBack(mode, filepath.Join(dest, filepath.Base(files[i])))
		if err == nil && x != sums[i] {
			err = fmt.Errorf("%s: copy differs", files[i])
		}
		return err
	}
	if err := each(copyOne); err != nil {
		return err
	}
	return each(check)
}

// bareCopy copies src to dst (preallocated), hashing what it read with
// MD5 and xxh64; it returns the xxh64.
func bareCopy(mode, src, dst string) (uint64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	fsys.Preallocate(out, fi.Size()) // as dit does
	m, x := lanes.New(), xxhash.New()
	step := func(b []byte) error {
		m.Write(b)
		x.Write(b)
		_, err := out.Write(b)
		return err
	}
	if mode == "mmap" && fi.Size() > 0 {
		data, err := unix.Mmap(int(in.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return 0, err
		}
		defer unix.Munmap(data)
		for off := 0; off < len(data); off += 256 << 10 {
			if err := step(data[off:min(off+256<<10, len(data))]); err != nil {
				return 0, err
			}
		}
	} else {
		buf := make([]byte, 256<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if err := step(buf[:n]); err != nil {
					return 0, err
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, err
			}
		}
	}
	m.Sum(nil)
	return x.Sum64(), out.Close()
}

// bareReadBack is the copy's xxh64, read back.
func bareReadBack(mode, name string) (uint64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	x := xxhash.New()
	if mode == "mmap" {
		fi, err := f.Stat()
		if err != nil || fi.Size() == 0 {
			return x.Sum64(), err
		}
		data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return 0, err
		}
		defer unix.Munmap(data)
		x.Write(data)
		return x.Sum64(), nil
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := f.Read(buf)
		x.Write(buf[:n])
		if err == io.EOF {
			return x.Sum64(), nil
		}
		if err != nil {
			return 0, err
		}
	}
}
