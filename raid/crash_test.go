package raid

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// leftovers lists intents, tmp files and chunks without a manifest.
func leftovers(t *testing.T, a *Array) []string {
	var out []string
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		for _, sub := range []string{"intents", "tmp"} {
			ents, _ := b.fs.ReadDir(path.Join(Dir, sub))
			for _, e := range ents {
				out = append(out, b.fs.Root()+"/"+sub+"/"+e.Name())
			}
		}
		fans, _ := b.fs.ReadDir(path.Join(Dir, "chunks"))
		for _, f := range fans {
			ents, _ := b.fs.ReadDir(path.Join(Dir, "chunks", f.Name()))
			for _, e := range ents {
				if _, ok := a.byID[e.Name()[:32]]; !ok {
					out = append(out, b.fs.Root()+"/chunks/"+e.Name())
				}
			}
		}
	}
	return out
}

// Fault test 2: crash after every filesystem operation of a 2-file job.
func TestCrashPointMatrix(t *testing.T) {
	for _, level := range []Level{RAID4, RAID0} {
		t.Run(string(level), func(t *testing.T) {
			earlier := randBytes(150_000, 1)
			job := map[string][]byte{"A001/C001.mov": randBytes(300_000, 2), "A001/C002.mov": randBytes(70_000, 3)}
			for i := 1; ; i++ {
				mb, dirs, a := memArray(t, level, 3, 64<<10)
				putFile(t, a, "earlier.mov", earlier)
				mb.w.mu.Lock()
				mb.w.crashAt, mb.w.ops = i, 0
				mb.w.mu.Unlock()
				completed := true
				for _, p := range []string{"A001/C001.mov", "A001/C002.mov"} {
					w, err := a.Create(FileSpec{Path: p, Mtime: mtime0})
					if err == nil {
						_, err = w.Write(job[p])
						if err == nil {
							_, err = w.Commit()
						} else {
							w.Abort()
						}
					}
					if err != nil {
						require.True(t, errors.Is(err, errCrashed), "op %d: %v", i, err)
						completed = false
						break
					}
				}
				if mb.w.crashed {
					completed = false
				}
				mb.crash()
				ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
				require.NoError(t, err, "op %d: reopen", i)
				got, err := getFile(ra, "earlier.mov")
				require.NoError(t, err, "op %d", i)
				require.True(t, bytes.Equal(earlier, got), "op %d: earlier file untouched", i)
				for p, data := range job {
					if _, ok := ra.Lookup(p); !ok {
						continue // fully absent
					}
					got, err := getFile(ra, p)
					require.NoError(t, err, "op %d: %s committed must verify", i, p)
					require.True(t, bytes.Equal(data, got), "op %d: %s", i, p)
					for r := range dirs {
						m, _ := ra.Lookup(p)
						_, err := ra.blades[r].fs.Stat(manifestName(m.FileID))
						require.NoError(t, err, "op %d: %s manifest on every blade after recovery", i, p)
					}
				}
				require.Empty(t, leftovers(t, ra), "op %d: no orphan chunk, intent or tmp", i)
				rep, err := ra.Scrub(false, nil, nil)
				require.NoError(t, err)
				require.True(t, rep.Clean(), "op %d: %+v", i, rep.Issues)
				// Crash again right away: the second recovery is a no-op.
				mb.crash()
				before := snapshotMem(mb, dirs)
				rb, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
				require.NoError(t, err)
				for _, ev := range rb.Events() {
					require.NotEqual(t, "recovered", ev.Kind, "op %d: second recovery did work: %s", i, ev.Message)
				}
				rb.Close()
				_ = before
				if completed {
					require.Greater(t, i, 20)
					return
				}
			}
		})
	}
}

// Fault test 3: the manifest durable on only one blade: roll forward.
func TestManifestOnSubsetRollsForward(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 4, 64<<10)
	data := randBytes(400_000, 9)
	// Crash right after the first manifest replica is durable: find the
	// operation count of that moment with a dry run.
	probe := func(crashAt int) (replicas int) {
		mb2, dirs2, a2 := memArray(t, RAID4, 4, 64<<10)
		mb2.w.mu.Lock()
		mb2.w.crashAt, mb2.w.ops = crashAt, 0
		mb2.w.mu.Unlock()
		if w, err := a2.Create(FileSpec{Path: "x.mov", Mtime: mtime0}); err == nil {
			if _, err := w.Write(data); err == nil {
				w.Commit()
			}
		}
		mb2.crash()
		for _, d := range dirs2 {
			ents, _ := mb2.blades[d].ReadDir(path.Join(Dir, "manifests"))
			for _, f := range ents {
				in, _ := mb2.blades[d].ReadDir(path.Join(Dir, "manifests", f.Name()))
				replicas += len(in)
			}
		}
		return replicas
	}
	at := 0
	for i := 1; i < 400; i++ {
		if probe(i) == 1 {
			at = i
			break
		}
	}
	require.NotZero(t, at, "found the moment one replica is durable")
	mb.w.mu.Lock()
	mb.w.crashAt, mb.w.ops = at, 0
	mb.w.mu.Unlock()
	w, err := a.Create(FileSpec{Path: "x.mov", Mtime: mtime0})
	require.NoError(t, err)
	w.Write(data)
	_, err = w.Commit()
	require.Error(t, err)
	mb.crash()
	ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
	require.NoError(t, err)
	got, err := getFile(ra, "x.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	m, _ := ra.Lookup("x.mov")
	for _, d := range dirs {
		_, err := mb.blades[d].Stat(manifestName(m.FileID))
		require.NoError(t, err, "replicated to %s", d)
	}
	rolled := false
	for _, ev := range ra.Events() {
		rolled = rolled || (ev.Kind == "recovered" && strings.Contains(ev.Message, "roll forward"))
	}
	require.True(t, rolled)
}

// Fault test 4: blade 2 ignores fsync; a crash after a commit loses its
// part. RAID 4 repairs from parity; RAID 0 names the damaged file.
func TestLyingFsync(t *testing.T) {
	for _, level := range []Level{RAID4, RAID0} {
		t.Run(string(level), func(t *testing.T) {
			mb, dirs, a := memArray(t, level, 3, 64<<10)
			data := randBytes(500_000, 4)
			mb.blades[dirs[2]].ignoreSync = true
			m := putFile(t, a, "clip.mov", data)
			src := m.Hashes["xxh64"]
			mb.crash()
			mb.blades[dirs[2]].ignoreSync = false
			ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
			require.NoError(t, err)
			require.NotNil(t, ra.lastRecovery, "quick-verify ran")
			require.False(t, ra.lastRecovery.Clean(), "the lost units were found")
			for _, is := range ra.lastRecovery.Issues {
				if is.Kind == IssueDataUnit || is.Kind == IssueParityUnit {
					require.Equal(t, dirs[2], is.Blade)
				}
			}
			got, err := getFile(ra, "clip.mov")
			if level == RAID4 {
				require.NoError(t, err)
				require.True(t, bytes.Equal(data, got))
				rm, _ := ra.Lookup("clip.mov")
				require.Equal(t, src, rm.Hashes["xxh64"])
				rep, err := ra.Scrub(false, nil, nil)
				require.NoError(t, err)
				require.True(t, rep.Clean(), "%+v", rep.Issues)
			} else {
				require.ErrorIs(t, err, ErrUnreadable, "never wrong bytes")
				require.Contains(t, ra.lastRecovery.Damaged, "clip.mov")
			}
		})
	}
}

// Fault test 5: an error on blade 1 in each phase fails the file whole.
func TestWriteErrorsMidFile(t *testing.T) {
	phases := []struct {
		name string
		f    *fault
	}{
		{"chunk write EIO", &fault{op: "write", match: "/chunks/", after: 2, err: syscall.EIO}},
		{"chunk write ENOSPC", &fault{op: "write", match: "/chunks/", after: 1, err: syscall.ENOSPC}},
		{"short write", &fault{op: "write", match: "/chunks/", after: 1, short: true}},
		{"chunk fsync", &fault{op: "sync", match: "/chunks/", err: syscall.EIO}},
		{"dir fsync", &fault{op: "syncdir", match: "chunks/", err: syscall.EIO}},
		{"manifest write", &fault{op: "rename", match: "/manifests/", err: syscall.EIO}},
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			mb, dirs := newMemBlades(4)
			var ffs *faultFS
			mk := func(d string) BladeFS {
				b := mb.fs(d)
				if d == dirs[1] {
					if ffs == nil {
						ffs = newFaultFS(b)
					}
					return ffs
				}
				return b
			}
			a, err := CreateFS(dirs, CreateOptions{Level: RAID4, StripeUnit: 64 << 10}, mk)
			require.NoError(t, err)
			before := randBytes(200_000, 1)
			putFile(t, a, "before.mov", before)
			ffs.add(ph.f)
			w, err := a.Create(FileSpec{Path: "bad.mov", Mtime: mtime0})
			require.NoError(t, err)
			_, werr := w.Write(randBytes(900_000, 2))
			var cerr error
			if werr == nil {
				_, cerr = w.Commit()
			} else {
				w.Abort()
			}
			require.Error(t, errors.Join(werr, cerr), "the file fails")
			_, ok := a.Lookup("bad.mov")
			require.False(t, ok, "never visible")
			require.Empty(t, leftovers(t, a), "chunks, intents and tmp cleaned up")
			for _, d := range dirs {
				ents, _ := mb.blades[d].ReadDir(path.Join(Dir, "manifests"))
				n := 0
				for _, f := range ents {
					in, _ := mb.blades[d].ReadDir(path.Join(Dir, "manifests", f.Name()))
					n += len(in)
				}
				require.Equal(t, 1, n, "only the earlier file's manifest on %s", d)
			}
			for name, n := range ffs.syncs {
				require.LessOrEqual(t, n, 1, "fsync of %s never retried", name)
			}
			got, err := getFile(a, "before.mov")
			require.NoError(t, err)
			require.True(t, bytes.Equal(before, got))
			require.NoError(t, a.Close())
			_ = fmt.Sprint
		})
	}
}
