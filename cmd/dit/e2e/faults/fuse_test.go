//go:build linux

package faults

// End-to-end fault tests: the real dit binary reads a card, or writes a
// destination, through internal/faultfuse, a FUSE loopback that flips a
// bit, stops answering or stalls a rename at the kernel boundary. They
// skip where FUSE cannot be mounted (no /dev/fuse, neither root nor
// fusermount).

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/faultfuse"
)

// faultWithin bounds how long a fault test waits for an event before it
// fails (it never sleeps for correctness; this turns a hang into a failure).
const faultWithin = 2 * time.Minute

// jobShowFile is a file of dit job show --json.
type jobShowFile struct {
	Path   string            `json:"path"`
	Size   int64             `json:"size"`
	State  string            `json:"state"`
	Hashes map[string]string `json:"hashes"`
	Copies []struct {
		Dest  string `json:"dest"`
		Path  string `json:"path"`
		State string `json:"state"`
	} `json:"copies"`
}

type jobShow struct {
	JobID int64  `json:"job_id"`
	State string `json:"state"`
	Cards []struct {
		Label        string `json:"label"`
		State        string `json:"state"`
		SafeToFormat bool   `json:"safe_to_format"`
		Destinations []struct {
			Path     string `json:"path"`
			Verified int    `json:"verified"`
			Failed   int    `json:"failed"`
		} `json:"destinations"`
		FileList []jobShowFile `json:"file_list"`
	} `json:"cards"`
}

func showJob(t *testing.T, db string, id int64) jobShow {
	t.Helper()
	r := e2e.Dit(t, db, "job", "show", e2e.Itoa(id), "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var s jobShow
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s), r.Stdout)
	return s
}

// jobsCard is a card of dit jobs --json.
type jobsCard struct {
	Label        string `json:"label"`
	State        string `json:"state"`
	SafeToFormat bool   `json:"safe_to_format"`
}

// jobCards is dit jobs --json, by job.
func jobCards(t *testing.T, db string) map[int64][]jobsCard {
	t.Helper()
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var list []struct {
		JobID int64      `json:"job_id"`
		Cards []jobsCard `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list), r.Stdout)
	out := map[int64][]jobsCard{}
	for _, j := range list {
		out[j.JobID] = j.Cards
	}
	return out
}

// largestClip is the largest .mov of a card, relative to it.
func largestClip(t *testing.T, card string) (string, int64) {
	t.Helper()
	var best string
	var size int64
	require.NoError(t, filepath.WalkDir(card, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() && strings.HasSuffix(p, ".mov") && !strings.HasPrefix(d.Name(), ".") {
			fi, err := d.Info()
			require.NoError(t, err)
			if fi.Size() > size {
				best, size = p, fi.Size()
			}
		}
		return nil
	}))
	require.NotEmpty(t, best, "no clip on %s", card)
	rel, err := filepath.Rel(card, best)
	require.NoError(t, err)
	return filepath.ToSlash(rel), size
}

// mountCard mounts backing through faultfuse at a mount point named label
// (dit names a card by its folder).
func mountCard(t *testing.T, backing, label string) *faultfuse.FS {
	t.Helper()
	mp := filepath.Join(t.TempDir(), label)
	require.NoError(t, os.Mkdir(mp, 0o755))
	return faultfuse.MountAt(t, backing, mp)
}

// headLines is the first n lines of s, and how many were left out.
func headLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-n)
}

// tailLines is the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// trueHashes are the default hashes (md5, xxh64) of a file, computed here.
func trueHashes(t *testing.T, p string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	m := md5.Sum(b)
	return map[string]string{"md5": hex.EncodeToString(m[:]), "xxh64": fmt.Sprintf("%016x", xxhash.Sum64(b))}
}

// TestFaultFlippedBitThenResume: the card returns one flipped bit on the
// first read of a clip. With --verify source+dest the re-read of the card
// disagrees: the file fails as unstable (exit 3), and a resume reads it
// again, gets the true bytes, replaces both copies and records the true
// hashes; a failed file never becomes verified as it was.
func TestFaultFlippedBitThenResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "8MB", "--style", "clips", "--seed", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	backing := filepath.Join(cards, "A001")
	victim, size := largestClip(t, backing)
	truth := trueHashes(t, filepath.Join(backing, filepath.FromSlash(victim)))

	card := mountCard(t, backing, "A001")
	card.FlipBitOnFirstRead(victim, size/2)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))

	r = e2e.Dit(t, db, "offload", "--name", "day01", "--verify", "source+dest", "-d", d1, "-d", d2, card.Dir())
	out := r.Stdout + r.Stderr
	require.Equal(t, 3, r.Code, "a clip that read differently twice fails the job:\n%s", out)
	require.True(t, strings.Contains(out, victim), "the output names %s:\n%s", victim, headLines(out, 40))
	require.True(t, strings.Contains(out, "unstable"), "and says the card returns unstable data:\n%s", headLines(out, 40))
	require.GreaterOrEqual(t, card.Reads(victim), 2*size, "the card was read twice (copy, source re-read)")
	s := showJob(t, db, 1)
	require.Len(t, s.Cards, 1)
	require.False(t, s.Cards[0].SafeToFormat)
	for _, d := range []string{d1, d2} {
		// Copies of a read the card did not give again do not keep the
		// clip's name: moved aside, named in the failure.
		p := filepath.Join(d, "day01", "A001", filepath.FromSlash(victim))
		require.NoFileExists(t, p)
		require.FileExists(t, p+".dit-failed")
		require.Contains(t, out, p+".dit-failed")
	}

	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "resume:\n%s%s", r.Stdout, r.Stderr)

	s = showJob(t, db, 1)
	require.Len(t, s.Cards, 1)
	require.True(t, s.Cards[0].SafeToFormat, "after the resume")
	var f *jobShowFile
	for i := range s.Cards[0].FileList {
		if s.Cards[0].FileList[i].Path == victim {
			f = &s.Cards[0].FileList[i]
		}
	}
	require.NotNil(t, f, "dit job show lists %s", victim)
	require.Equal(t, "verified", f.State)
	require.Equal(t, truth, f.Hashes, "the catalog records the true hashes of %s, not those of the flipped read", victim)
	require.Len(t, f.Copies, 2)
	want, err := os.ReadFile(filepath.Join(backing, filepath.FromSlash(victim)))
	require.NoError(t, err)
	for _, c := range f.Copies {
		require.Equal(t, "verified", c.State, c.Path)
		got, err := os.ReadFile(c.Path)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "the copy %s is byte-identical to the card", c.Path)
	}
	for _, d := range s.Cards[0].Destinations {
		require.Equal(t, e2e.Footage(e2e.Tree(t, backing)), e2e.WithoutHistory(e2e.Tree(t, d.Path)), "every file on %s", d.Path)
	}
	v := e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 0, v.Code, "dit verify 1:\n%s%s", v.Stdout, v.Stderr)
}

// TestFaultKillDuringChainRename: the destination stalls the rename of
// the card's ASC MHL chain file and dit is killed (kill -9) right then.
// The card is not safe to format; a resume finishes it with one
// generation and no temp left, which dit and the ASC reference tool both
// verify; a second resume writes nothing new.
func TestFaultKillDuringChainRename(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "clips", "--seed", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	card := filepath.Join(cards, "A001")
	backing := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(backing, 0o755))
	dest := faultfuse.Mount(t, backing)
	stalled := dest.StallRename("ascmhl_chain.xml")

	cmd := exec.Command(e2e.Bin, "offload", "--name", "day01", "-d", dest.Dir(), card)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case target := <-stalled:
		t.Logf("stalled: rename onto %s", target)
	case err := <-exited:
		t.Fatalf("dit ended (%v) without renaming a chain file:\n%s", err, o.String())
	case <-time.After(faultWithin):
		cmd.Process.Kill()
		t.Fatalf("no chain rename within %s:\n%s", faultWithin, o.String())
	}
	require.NoError(t, cmd.Process.Kill())
	select {
	case <-exited:
	case <-time.After(faultWithin):
		dest.Release()
		t.Fatal("the killed dit did not die while its rename was stalled")
	}
	dest.Release()
	t.Logf("killed dit; its output:\n%s", o.String())

	folder := filepath.Join(dest.Dir(), "day01", "A001")
	t.Logf("left by the kill in %s/ascmhl: %v", folder, listDir(t, filepath.Join(folder, "ascmhl")))
	jobs := jobCards(t, db)
	require.Len(t, jobs[1], 1)
	assert.False(t, jobs[1][0].SafeToFormat, "a card whose history was not committed is not safe to format (card state %q)", jobs[1][0].State)

	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "resume:\n%s%s", r.Stdout, r.Stderr)
	jobs = jobCards(t, db)
	assert.True(t, jobs[1][0].SafeToFormat, "after the resume (card state %q)", jobs[1][0].State)
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Tree(t, folder)))
	t.Logf("after the resume, %s/ascmhl: %v", folder, listDir(t, filepath.Join(folder, "ascmhl")))

	v := e2e.Dit(t, db, "mhl", "verify", folder)
	assert.Equal(t, 0, v.Code, "dit mhl verify %s:\n%s%s", folder, v.Stdout, v.Stderr)
	if _, err := exec.LookPath("python3"); err == nil {
		ascmhl := filepath.Join(e2e.ReferenceTool(t), "ascmhl-debug")
		res := e2e.RunTool(t, ascmhl, "verify", folder)
		assert.Equal(t, 0, res.Code, "ascmhl-debug verify %s:\n%s", folder, res.Out)
	} else {
		t.Log("python3 is not installed: the ASC MHL reference tool does not check the folder")
	}

	var temps []string
	require.NoError(t, filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if strings.HasSuffix(d.Name(), ".dit-tmp") {
			temps = append(temps, p)
		}
		return nil
	}))
	assert.Empty(t, temps, "no temp file is left in the card's folder")
	manifests := func() []string {
		m, err := filepath.Glob(filepath.Join(folder, "ascmhl", "*.mhl"))
		require.NoError(t, err)
		sort.Strings(m)
		return m
	}
	first := manifests()
	if assert.Len(t, first, 1, "exactly one generation") {
		assert.Regexp(t, `/0001_[^/]*\.mhl$`, first[0])
	}
	chain := filepath.Join(folder, "ascmhl", "ascmhl_chain.xml")
	chainBytes, err := os.ReadFile(chain)
	assert.NoError(t, err, "the chain file")

	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "second resume:\n%s%s", r.Stdout, r.Stderr)
	assert.Equal(t, first, manifests(), "a resume with nothing to do writes no new generation")
	again, err := os.ReadFile(chain)
	assert.NoError(t, err, "the chain file")
	assert.Equal(t, string(chainBytes), string(again), "the chain file is unchanged")
}

// listDir names what a folder holds ("" if it is missing).
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return []string{err.Error()}
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// ditNoEnv runs dit without DIT_DB in its environment (the catalog only
// from --db).
func ditNoEnv(t *testing.T, args ...string) e2e.Result {
	t.Helper()
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DIT_DB=") {
			env = append(env, e)
		}
	}
	return e2e.RunDit(t, env, args...)
}

// TestFaultCardStopsAnswering: after 5 files the card answers every open,
// read and stat of a file with EIO, while its mount point still stats.
// dit ends with exit 3, one grouped line instead of an I/O error per file,
// and the resume hint with the --db it was given; once the card answers
// again the resume copies every file.
func TestFaultCardStopsAnswering(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	backing := filepath.Join(dir, "A001")
	rng := rand.New(rand.NewSource(5))
	mt := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	for i := range 40 {
		p := filepath.Join(backing, "CLIPS", fmt.Sprintf("A001C%03d.MOV", i+1))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		b := make([]byte, 20_000+rng.Intn(40_000))
		rng.Read(b)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	card := mountCard(t, backing, "A001")
	card.FailReadsAfter(5)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))

	r := ditNoEnv(t, "offload", "--db", db, "--name", "day01", "-d", d1, card.Dir())
	out := r.Stdout + r.Stderr
	require.Equal(t, 3, r.Code, "a card that stopped answering fails the job:\n%s", headLines(out, 40))
	select {
	case <-card.Tripped():
	default:
		t.Fatalf("the card never stopped answering:\n%s", out)
	}
	var ioLines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "input/output error") {
			ioLines = append(ioLines, l)
		}
	}
	ok := assert.LessOrEqual(t, len(ioLines), 3, "the I/O errors are grouped, not one line per file")
	ok = assert.True(t, strings.Contains(out, "stopped answering after"), "one grouped line says the card stopped answering") && ok
	hint := "dit offload --resume 1 --db " + db
	ok = assert.True(t, strings.Contains(out, hint), "the resume hint %q carries the --db given", hint) && ok
	if !ok {
		t.Logf("dit's output (%d lines, %d with an I/O error), head and tail:\n%s\n...\n%s", strings.Count(out, "\n"), len(ioLines), headLines(out, 4), tailLines(out, 14))
	}

	card.Heal()
	r = ditNoEnv(t, "offload", "--resume", "1", "--db", db)
	require.Equal(t, 0, r.Code, "resume:\n%s%s", r.Stdout, r.Stderr)
	var s jobShow
	show := ditNoEnv(t, "job", "show", "1", "--json", "--db", db)
	require.Equal(t, 0, show.Code, show.Stderr)
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s))
	require.Len(t, s.Cards, 1)
	require.True(t, s.Cards[0].SafeToFormat)
	require.Len(t, s.Cards[0].Destinations, 1)
	require.Equal(t, e2e.Tree(t, backing), e2e.WithoutHistory(e2e.Tree(t, s.Cards[0].Destinations[0].Path)), "every file, byte for byte")
}
