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

// bareBlockSize is the size of the blocks bare reads, as dit's pipeline.
const bareBlockSize = 256 << 10

// bareBlock is a block read, held until every stage has taken it.
type bareBlock struct {
	b    []byte
	n    int
	refs sync.WaitGroup
}

// bareCard copies one card's files to every destination, each copy read
// back behind the copy.
func bareCard(card string, dests []string) error {
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
	free := make(chan *bareBlock, 32)
	for i := 0; i < 32; i++ {
		free <- &bareBlock{b: make([]byte, bareBlockSize)}
	}
	verify, stop := startReadBack()
	defer stop()
	for _, src := range files {
		rel, _ := filepath.Rel(filepath.Dir(card), src)
		outs, err := bareFile(src, rel, dests, free)
		if err != nil {
			return err
		}
		for _, o := range outs {
			verify <- o
		}
	}
	return nil
}

// startReadBack starts the goroutine that reads back and hashes (xxh64)
// each copy sent to verify; stop waits for it to finish them.
func startReadBack() (verify chan<- string, stop func()) {
	ch := make(chan string, 64)
	vdone := make(chan struct{})
	go func() {
		defer close(vdone)
		b := make([]byte, bareBlockSize)
		for p := range ch {
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
	return ch, func() { close(ch); <-vdone }
}

// bareFile copies src to rel in every destination: read once, each block
// to an MD5, an xxh64 and a writer per destination on goroutines of their
// own, as dit. It returns the copies' names, closed.
func bareFile(src, rel string, dests []string, free chan *bareBlock) ([]string, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	fi, _ := f.Stat()
	outs := make([]*os.File, len(dests))
	for i, d := range dests {
		p := filepath.Join(d, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if outs[i], err = os.Create(p); err != nil {
			return nil, err
		}
		fsys.Preallocate(outs[i], fi.Size())
	}
	// One goroutine a hash and a destination, as dit.
	stages := make([]chan *bareBlock, 2+len(outs))
	var swg sync.WaitGroup
	var werr error
	var mu sync.Mutex
	for s := range stages {
		stages[s] = make(chan *bareBlock, 32)
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
			return nil, rerr
		}
	}
	for _, s := range stages {
		close(s)
	}
	swg.Wait()
	f.Close()
	if werr != nil {
		return nil, werr
	}
	var names []string
	for _, o := range outs {
		if err := o.Close(); err != nil {
			return nil, err
		}
		names = append(names, o.Name())
	}
	return names, nil
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
