//go:build unix

package main

import (
	"crypto/md5"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/dit-org/dit/internal/fsys"
)

// bare does the reference job's work and nothing else, the way dit's
// pipeline does it: each card read once in 256 KiB blocks, MD5 and xxh64
// of every block on their own goroutines, both copies written (their
// blocks reserved first, as dit does) by a goroutine each, then every copy
// read back and hashed with xxh64 behind the copy. No catalog, no temp
// files and renames, no fsync, no comparison, no hash lists, no reports:
// the floor of this job on this machine, against which dit's own cost is
// measured (ditbench -bare CARD... -- DEST...).
func bare(cards, dests []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(cards))
	for i, c := range cards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = bareCard(c, dests)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func bareCard(card string, dests []string) error {
	const bs = 256 << 10
	var files []string
	err := filepath.Walk(card, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	type blk struct {
		b    []byte
		n    int
		refs sync.WaitGroup
	}
	free := make(chan *blk, 32)
	for i := 0; i < 32; i++ {
		free <- &blk{b: make([]byte, bs)}
	}
	verify := make(chan string, 64)
	vdone := make(chan struct{})
	go func() {
		defer close(vdone)
		b := make([]byte, bs)
		for p := range verify {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			h := xxhash.New()
			for {
				n, err := io.ReadFull(f, b)
				h.Write(b[:n])
				if err != nil {
					break
				}
			}
			f.Close()
		}
	}()
	defer func() { close(verify); <-vdone }()
	for _, src := range files {
		rel, _ := filepath.Rel(filepath.Dir(card), src)
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		fi, _ := f.Stat()
		outs := make([]*os.File, len(dests))
		for i, d := range dests {
			p := filepath.Join(d, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if outs[i], err = os.Create(p); err != nil {
				return err
			}
			fsys.Preallocate(outs[i], fi.Size())
		}
		// One goroutine a hash and a destination, as dit.
		stages := make([]chan *blk, 2+len(outs))
		var swg sync.WaitGroup
		var werr error
		var mu sync.Mutex
		for s := range stages {
			stages[s] = make(chan *blk, 32)
			swg.Add(1)
			go func() {
				defer swg.Done()
				var h interface{ Write([]byte) (int, error) }
				switch s {
				case 0:
					h = md5.New()
				case 1:
					h = xxhash.New()
				}
				for x := range stages[s] {
					if h != nil {
						h.Write(x.b[:x.n])
					} else if _, err := outs[s-2].Write(x.b[:x.n]); err != nil {
						mu.Lock()
						werr = err
						mu.Unlock()
					}
					x.refs.Done()
				}
			}()
		}
		for {
			x := <-free
			n, rerr := io.ReadFull(f, x.b)
			if n > 0 {
				x.n = n
				x.refs.Add(len(stages))
				for _, s := range stages {
					s <- x
				}
				go func() { x.refs.Wait(); free <- x }()
			} else {
				free <- x
			}
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				break
			}
			if rerr != nil {
				return rerr
			}
		}
		for _, s := range stages {
			close(s)
		}
		swg.Wait()
		f.Close()
		if werr != nil {
			return werr
		}
		for _, o := range outs {
			if err := o.Close(); err != nil {
				return err
			}
			verify <- o.Name()
		}
	}
	return nil
}

// bareMain runs bare for "ditbench -bare CARD... -- DEST...".
func bareMain(args []string) {
	for i, a := range args {
		if a == "--" {
			if err := bare(args[:i], args[i+1:]); err != nil {
				fmt.Fprintln(os.Stderr, "bare:", err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintln(os.Stderr, "usage: ditbench -bare CARD... -- DEST...")
	os.Exit(2)
}
