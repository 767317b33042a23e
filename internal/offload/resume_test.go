package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

func TestConflicts(t *testing.T) {
	setup := func(t *testing.T) (*env, string, string, string) {
		e := newEnv(t)
		a, _ := twoCards(t, e)
		d1 := e.dest("d1")
		clips := filepath.Join(d1, "day01", "A001", "CLIPS")
		require.NoError(t, os.MkdirAll(clips, 0o755))
		// An identical C001 and a different C002 are already there.
		require.NoError(t, os.WriteFile(filepath.Join(clips, "C001.mov"), mustRead(t, filepath.Join(a, "CLIPS", "C001.mov")), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(clips, "C002.mov"), []byte("someone else's file"), 0o644))
		return e, a, d1, clips
	}
	t.Run("fail (default)", func(t *testing.T) {
		e, a, d1, clips := setup(t)
		s, err := e.run(e.opts([]string{a}, []string{d1}))
		require.NoError(t, err)
		c := s.Cards[0]
		require.False(t, c.SafeToFormat)
		require.Len(t, c.Failures, 1)
		require.Equal(t, "CLIPS/C002.mov", c.Failures[0].Path)
		require.Contains(t, c.Failures[0].Error, "never overwrites")
		require.Equal(t, "someone else's file", string(mustRead(t, filepath.Join(clips, "C002.mov"))))
		cards, _ := e.cat.Cards(s.JobID)
		files, _ := e.cat.Files(cards[0].ID)
		require.Equal(t, StateVerified, files[0].Copies[0].State, "the identical file was recorded present, then read back")
	})
	t.Run("skip", func(t *testing.T) {
		e, a, d1, clips := setup(t)
		o := e.opts([]string{a}, []string{d1})
		o.OnConflict = ConflictSkip
		s, err := e.run(o)
		require.NoError(t, err)
		require.False(t, s.Cards[0].SafeToFormat)
		require.Equal(t, 1, s.Cards[0].Destinations[0].Skipped)
		require.Equal(t, "someone else's file", string(mustRead(t, filepath.Join(clips, "C002.mov"))))
	})
	t.Run("rename", func(t *testing.T) {
		e, a, d1, clips := setup(t)
		o := e.opts([]string{a}, []string{d1})
		o.OnConflict = ConflictRename
		s, err := e.run(o)
		require.NoError(t, err)
		require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
		require.Equal(t, "someone else's file", string(mustRead(t, filepath.Join(clips, "C002.mov"))))
		require.Equal(t, mustRead(t, filepath.Join(a, "CLIPS", "C002.mov")), mustRead(t, filepath.Join(clips, "C002 (2).mov")))
	})
}

func inode(t *testing.T, p string) uint64 {
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return inodeOf(t, fi)
}

// Interrupt a throttled job mid-way, then resume: verified files are kept
// as they are, the rest is copied and verified, no temp is left.
func TestInterruptAndResume(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[filepath.Join("CLIPS", "C"+string(rune('A'+i))+".mov")] = bigContent(64_000, byte(i))
	}
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", files)
	d1, d2 := e.dest("d1"), e.dest("d2")
	o := e.opts([]string{a}, []string{d1, d2})
	o.BlockSize = 16 << 10
	o.Throttle = 400_000 // ~2 s for the card
	ctx, cancel := context.WithCancel(context.Background())
	verified := make(chan struct{}, 100)
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile && ev.State == StateVerified {
			verified <- struct{}{}
		}
	}
	j, err := New(ctx, o)
	require.NoError(t, err)
	go func() {
		for i := 0; i < 3; i++ {
			<-verified
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	require.Equal(t, catalog.JobInterrupted, s.State)
	require.False(t, s.Cards[0].SafeToFormat)
	assertNoTemps(t, d1)

	// Remember the inodes of what was verified before the interrupt.
	cards, _ := e.cat.Cards(s.JobID)
	before, _ := e.cat.Files(cards[0].ID)
	kept := map[string]uint64{}
	for _, f := range before {
		if f.State == StateVerified {
			kept[f.Rel] = inode(t, filepath.Join(d1, "day01", "A001", f.Rel))
		}
	}
	require.GreaterOrEqual(t, len(kept), 3)
	require.Less(t, len(kept), 12)
	// A temp left by a kill -9 is removed on resume.
	stale := filepath.Join(d1, "day01", "A001", "CLIPS", ".CZ.mov.123"+TempSuffix)
	require.NoError(t, os.WriteFile(stale, []byte("partial"), 0o644))

	o2 := e.opts(nil, nil)
	o2.BlockSize = 16 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0])
	require.True(t, s2.Cards[0].SafeToFormat)
	for rel, ino := range kept {
		require.Equal(t, ino, inode(t, filepath.Join(d1, "day01", "A001", rel)), "%s was not copied again", rel)
	}
	for _, d := range []string{d1, d2} {
		require.Equal(t, treeHashes(t, a), treeHashes(t, filepath.Join(d, "day01", "A001")))
	}
	_, err = os.Lstat(stale)
	require.ErrorIs(t, err, os.ErrNotExist)
	jobs, _ := e.cat.Jobs()
	require.Len(t, jobs, 1, "resume continues the same job")
	require.Equal(t, catalog.JobDone, jobs[0].State)
	_ = time.Second
}

// A card reformatted and re-used with the same names must never overwrite
// footage this job verified from the old card.
func TestResumeNeverOverwritesVerifiedCopyWithChangedCard(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	d1 := e.dest("d1")
	s, err := e.run(e.opts([]string{a}, []string{d1}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	copyPath := filepath.Join(d1, "day01", "A001", "CLIPS", "C001.mov")
	old := mustRead(t, copyPath)
	src := filepath.Join(a, "CLIPS", "C001.mov")
	require.NoError(t, os.WriteFile(src, []byte(bigContent(200_000, 99)), 0o644))

	j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
	require.NoError(t, err)
	s2, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s2.ExitCode)
	require.Len(t, s2.Cards[0].Failures, 1)
	require.Contains(t, s2.Cards[0].Failures[0].Error, "changed since this job verified")
	require.Equal(t, old, mustRead(t, copyPath), "the verified copy is kept")
	cards, _ := e.cat.Cards(s.JobID)
	files, _ := e.cat.Files(cards[0].ID)
	require.Equal(t, "CLIPS/C001.mov", files[0].Rel)
	require.NotEmpty(t, files[0].Sums.Get(hashing.MD5), "recorded hashes are kept")

	// The resume it seems to ask for, again and again: the verified copy
	// is never replaced by what the card holds now, and the card is never
	// safe to format.
	for i := 0; i < 2; i++ {
		j, err := Resume(context.Background(), e.cat, s.JobID, e.opts(nil, nil))
		require.NoError(t, err)
		s3, err := j.Run(context.Background())
		require.NoError(t, err)
		require.NotEqual(t, ExitOK, s3.ExitCode, "resume %d", i+2)
		require.False(t, s3.Cards[0].SafeToFormat, "resume %d: %s", i+2, s3.Cards[0].Verdict)
		require.Equal(t, old, mustRead(t, copyPath), "resume %d: the verified copy is kept", i+2)
		require.Len(t, s3.Cards[0].Failures, 1)
		require.Contains(t, s3.Cards[0].Failures[0].Error, ChangedSinceVerified, "resume %d says why, as the first", i+2)
	}
}

// A job's hash-list choice is recorded; Resume takes it back and refuses a
// different one before claiming the job.
func TestResumeKeepsRecordedMHL(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	o := e.opts([]string{a}, []string{e.dest("d1")})
	o.MHL = "v1"
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, "v1", j.MHL())
	j.Close()
	require.NoError(t, e.cat.SetJobState(j.ID(), catalog.JobInterrupted, time.Now(), ""))

	_, err = Resume(context.Background(), e.cat, j.ID(), Options{JobSpec: JobSpec{MHL: "both"}})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	require.ErrorContains(t, err, "was started with --mhl v1, not --mhl both")
	rec, err := e.cat.Job(j.ID())
	require.NoError(t, err)
	require.Equal(t, catalog.JobInterrupted, rec.State, "a refused resume leaves the job as it was")

	r, err := Resume(context.Background(), e.cat, j.ID(), Options{})
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, "v1", r.MHL())

	// A job that names no hash lists records the default.
	o2 := e.opts([]string{a}, []string{e.dest("d2")})
	o2.Name = "day02"
	j2, err := New(context.Background(), o2)
	require.NoError(t, err)
	defer j2.Close()
	require.Equal(t, DefaultMHL, j2.MHL())
}
