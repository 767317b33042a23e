//go:build unix

package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // reads the interrupted job's catalog
)

// benchRuns measures the offloads that read a card's earlier records: a
// resume of the card's job interrupted (Ctrl-C) once half its files were
// verified, and a cascade (--then: the second run reads the first run's
// hashes of every file). Each gets a new catalog and destinations.
func benchRuns(dit, dir string, n int, hash, only string) ([]result, error) {
	card, err := makeCard(dir, n, framesPerClip)
	if err != nil {
		return nil, err
	}
	dit, _ = filepath.Abs(dit)
	var rs []result
	if only == "" || strings.Contains("dit offload --resume (half)", only) {
		r, err := benchResume(dit, dir, card, n, hash)
		if err != nil {
			return rs, err
		}
		rs = append(rs, r)
		printResult(r)
	}
	if only == "" || strings.Contains("dit offload --then", only) {
		work, err := newWork(dir, "cascade", n)
		if err != nil {
			return rs, err
		}
		defer os.RemoveAll(work)
		for _, d := range []string{"d1", "d2"} {
			if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
				return rs, err
			}
		}
		r, err := run(dit, work, "offload", "--hash", hash, "--name", "Mem", "-d", filepath.Join(work, "d1"),
			"--then", filepath.Join(work, "d2"), "--db", filepath.Join(work, "catalog.db"), card)
		if err != nil {
			return rs, err
		}
		r.name, r.n = "dit offload --then", n
		rs = append(rs, r)
		printResult(r)
	}
	return rs, nil
}

// newWork is a new, empty work folder for a measure of a card of n files.
func newWork(dir, what string, n int) (string, error) {
	work := filepath.Join(dir, fmt.Sprintf("%s-%d", what, n))
	if err := os.RemoveAll(work); err != nil {
		return "", err
	}
	return work, os.MkdirAll(work, 0o755)
}

// benchResume offloads the card, interrupts dit once the catalog holds
// half its files verified, and measures the resume.
func benchResume(dit, dir, card string, n int, hash string) (result, error) {
	work, err := newWork(dir, "resume", n)
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(work)
	db, dest := filepath.Join(work, "catalog.db"), filepath.Join(work, "dest")
	if err := os.Mkdir(dest, 0o755); err != nil {
		return result{}, err
	}
	cmd := exec.Command(dit, "offload", "--hash", hash, "--name", "Mem", "-d", dest, "--db", db, card)
	cmd.Dir = work
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &limited{&out}, &limited{&out}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := waitVerified(db, n/2, done); err != nil {
		cmd.Process.Kill()
		return result{}, fmt.Errorf("%w\n%s", err, out.String())
	}
	cmd.Process.Signal(os.Interrupt)
	if err := <-done; err == nil {
		return result{}, errors.New("dit offload ended before it was interrupted: use a larger card")
	}
	r, err := run(dit, work, "offload", "--resume", "1", "--db", db)
	r.name, r.n = "dit offload --resume (half)", n
	return r, err
}

// waitVerified polls catalog db until it records at least half files
// verified (the offload's progress, read as any reader of the catalog
// would), or the offload ends (done).
func waitVerified(db string, half int, done <-chan error) error {
	var cat *sql.DB
	for {
		select {
		case err := <-done:
			return fmt.Errorf("dit offload ended before %d files were verified: %v", half, err)
		case <-time.After(100 * time.Millisecond):
		}
		if cat == nil {
			if _, err := os.Stat(db); err != nil {
				continue
			}
			var err error
			if cat, err = sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)"); err != nil {
				return err
			}
			defer cat.Close()
		}
		var got int
		if err := cat.QueryRow(`SELECT count(*) FROM files WHERE state='verified'`).Scan(&got); err != nil {
			continue // not migrated yet
		}
		if got >= half {
			return nil
		}
	}
}
