package offload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/units"
)

// flipFS flips one byte of matching copies on disk just before they are
// read back: a destination that returns different bytes than were written.
type flipFS struct {
	fsys.FS
	match string
}

func (f flipFS) OpenNoCache(name string) (fsys.File, error) {
	if strings.Contains(name, f.match) {
		fh, err := os.OpenFile(name, os.O_RDWR, 0)
		if err == nil {
			var b [1]byte
			fh.ReadAt(b[:], 1000)
			b[0] ^= 0x01
			fh.WriteAt(b[:], 1000)
			fh.Close()
		}
	}
	return f.FS.OpenNoCache(name)
}

func twoCards(t *testing.T, e *env) (string, string) {
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", map[string]string{
		"CLIPS/C001.mov": bigContent(200_000, 1), "CLIPS/C002.mov": bigContent(150_000, 2), "CLIPS/C003.mov": bigContent(10_000, 3)})
	b := testCard(t, filepath.Join(e.dir, "c2"), "B001", map[string]string{
		"CLIPS/C001.mov": bigContent(180_000, 4), "CLIPS/C002.mov": bigContent(5_000, 5)})
	return a, b
}

func cardByLabel(s *Summary, label string) *CardSummary {
	for i := range s.Cards {
		if s.Cards[i].Label == label {
			return &s.Cards[i]
		}
	}
	return nil
}

func TestFlippedByteBeforeVerifyIsCaught(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	o := e.opts([]string{a, b}, []string{d1, d2})
	o.FS = flipFS{FS: fsys.OS{}, match: filepath.Join("d2", "day01", "A001", "CLIPS", "C002.mov")}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	ca := cardByLabel(s, "A001")
	require.False(t, ca.SafeToFormat)
	require.Contains(t, ca.Verdict, "NOT safe")
	require.Equal(t, 1, ca.Failed)
	require.Equal(t, "CLIPS/C002.mov", ca.Failures[0].Path)
	require.Contains(t, ca.Failures[0].Error, "xxh64 mismatch")
	require.Equal(t, 1, ca.Destinations[1].Failed)
	require.Equal(t, 3, ca.Destinations[0].Verified)
	require.True(t, cardByLabel(s, "B001").SafeToFormat)
}

func TestReadFaultsFailOnlyThatFile(t *testing.T) {
	cases := []struct {
		name  string
		fault fsys.Fault
		want  string
	}{
		{"EIO at byte N", fsys.Fault{Match: "A001/CLIPS/C002.mov", ReadErrAt: 70_000}, "input/output error"},
		{"EACCES", fsys.Fault{Match: "A001/CLIPS/C002.mov", OpenErr: syscall.EACCES}, "permission denied"},
		{"vanished", fsys.Fault{Match: "A001/CLIPS/C002.mov", OpenErr: syscall.ENOENT}, "vanished from the card"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, d1, d2, s, ca := runWithFault(t, tc.fault)
			require.Equal(t, "CLIPS/C002.mov", ca.Failures[0].Path)
			require.Contains(t, ca.Failures[0].Error, tc.want)
			for _, d := range ca.Destinations {
				require.Equal(t, 2, d.Verified, "the other files of the card went on")
			}
			require.True(t, cardByLabel(s, "B001").SafeToFormat)
			for _, d := range []string{d1, d2} {
				_, err := os.Lstat(filepath.Join(d, "day01", "A001", "CLIPS", "C002.mov"))
				require.ErrorIs(t, err, os.ErrNotExist, "no partial file under the real name")
				assertNoTemps(t, d)
			}
		})
	}
}

// runWithFault offloads twoCards to d1 and d2 through fault, and checks
// what every single fault must give: card A001 not safe, one file failed,
// exit 3.
func runWithFault(t *testing.T, fault fsys.Fault) (a, d1, d2 string, s *Summary, ca *CardSummary) {
	t.Helper()
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1, d2 = e.dest("d1"), e.dest("d2")
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fault)
	o := e.opts([]string{a, b}, []string{d1, d2})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s.ExitCode)
	ca = cardByLabel(s, "A001")
	require.False(t, ca.SafeToFormat)
	require.Len(t, ca.Failures, 1)
	return a, d1, d2, s, ca
}

func assertNoTemps(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		require.NotContains(t, p, TempSuffix)
		return nil
	})
}

func TestWriteFaultsFailOnlyThatDestination(t *testing.T) {
	cases := []struct {
		name  string
		fault fsys.Fault
		want  string
	}{
		{"ENOSPC mid-file", fsys.Fault{Match: "d2/day01/A001/CLIPS/.C001.mov", WriteErrAt: 100_000}, "destination full"},
		{"short write", fsys.Fault{Match: "d2/day01/A001/CLIPS/.C001.mov", WriteErrAt: 100_000, ShortWrite: true}, "short write"},
		{"fsync EIO", fsys.Fault{Match: "d2/day01/A001/CLIPS/.C001.mov", SyncErr: syscall.EIO}, "input/output error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, d1, d2, _, ca := runWithFault(t, tc.fault)
			require.Contains(t, ca.Failures[0].Error, tc.want)
			require.Equal(t, 3, ca.Destinations[0].Verified, "the healthy destination got every file")
			require.Equal(t, 2, ca.Destinations[1].Verified)
			require.Equal(t, 1, ca.Destinations[1].Failed)
			_, err := os.Lstat(filepath.Join(d2, "day01", "A001", "CLIPS", "C001.mov"))
			require.ErrorIs(t, err, os.ErrNotExist, "no partial file under the real name")
			require.Equal(t, mustRead(t, filepath.Join(a, "CLIPS", "C001.mov")), mustRead(t, filepath.Join(d1, "day01", "A001", "CLIPS", "C001.mov")))
			assertNoTemps(t, d2)
		})
	}
}

func TestFileChangingWhileReadFails(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	src := filepath.Join(a, "CLIPS", "C001.mov")
	var once atomic.Bool
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: "A001/CLIPS/C001.mov", OnRead: func(total int64) {
		if once.CompareAndSwap(false, true) {
			fh, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
			fh.Write([]byte("more frames"))
			fh.Close()
		}
	}})
	o := e.opts([]string{a, b}, []string{d1})
	o.FS = f
	o.BlockSize = 32 << 10
	s, err := e.run(o)
	require.NoError(t, err)
	ca := cardByLabel(s, "A001")
	require.Len(t, ca.Failures, 1)
	require.Contains(t, ca.Failures[0].Error, "changed while it was read")
	require.False(t, ca.SafeToFormat)
	_, err = os.Lstat(filepath.Join(d1, "day01", "A001", "CLIPS", "C001.mov"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestCardPulledMidCopy(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	var once atomic.Bool
	f := fsys.NewFaulty(fsys.OS{})
	f.Add(fsys.Fault{Match: "A001/CLIPS/C001.mov", ReadErrAt: 50_000, OnRead: func(int64) {
		if once.CompareAndSwap(false, true) {
			require.NoError(t, os.Rename(a, a+"-pulled"))
		}
	}})
	o := e.opts([]string{a, b}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	ca := cardByLabel(s, "A001")
	require.Equal(t, StateFailed, ca.State)
	require.False(t, ca.SafeToFormat)
	require.Len(t, ca.Failures, 3, "every file of the pulled card fails")
	for _, fl := range ca.Failures {
		require.Contains(t, fl.Error, "card A001 removed")
	}
	require.True(t, cardByLabel(s, "B001").SafeToFormat, "the other card finishes")
}

func TestVerifyNoneIsNotSafe(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	o := e.opts([]string{a}, []string{e.dest("d1")})
	o.Verify = VerifyNone
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	require.False(t, s.Cards[0].SafeToFormat)
	require.Equal(t, "Copied, not verified: NOT safe to format", s.Cards[0].Verdict)
}

func TestSourceDestAndAllHashes(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	o := e.opts([]string{a, b}, []string{e.dest("d1"), e.dest("d2")})
	o.Verify = VerifySourceDest
	o.VerifyAll = true
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	cards, _ := e.cat.Cards(s.JobID)
	files, _ := e.cat.Files(cards[0].ID)
	require.Equal(t, "md5,xxh64", files[0].Copies[0].VerifyAlgos)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	cases := []struct {
		name         string
		cards, dests []string
		want         string
	}{
		{"no card", nil, []string{d1}, "no card given"},
		{"no destination", []string{a}, nil, "no destination"},
		{"missing card", []string{filepath.Join(e.dir, "nope")}, []string{d1}, "nope does not exist"},
		{"card twice", []string{a, a + "/"}, []string{d1}, "is given twice"},
		{"dest is card", []string{a}, []string{a}, "is the card"},
		{"dest inside card", []string{a}, []string{filepath.Join(a, "CLIPS")}, "is inside the card"},
		{"dest contains card", []string{a}, []string{filepath.Join(e.dir, "c1")}, "contains the card"},
		{"missing dest", []string{a}, []string{filepath.Join(e.dir, "unmounted")}, "unmounted does not exist"},
		{"dest twice", []string{a}, []string{d1, d1}, "given twice"},
		{"same label", []string{a, testCard(t, filepath.Join(e.dir, "other"), "A001", map[string]string{"x": "y"})}, []string{d1}, "would both land in"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(context.Background(), e.opts(tc.cards, tc.dests))
			require.ErrorContains(t, err, tc.want)
		})
	}
	_ = b
}

func TestSecondOffloadOnSameDestinationRefused(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	j1, err := New(context.Background(), e.opts([]string{a}, []string{d1}))
	require.NoError(t, err)
	defer j1.Close()
	_, err = New(context.Background(), e.opts([]string{b}, []string{d1}))
	require.ErrorContains(t, err, "is in use by another dit offload")
	j1.Close()
	j2, err := New(context.Background(), e.opts([]string{b}, []string{d1}))
	require.NoError(t, err)
	j2.Close()
}

// smallFS reports little free space.
type smallFS struct {
	fsys.FS
	free uint64
}

func (s smallFS) Free(name string) (uint64, string, error) {
	_, id, err := s.FS.Free(name)
	return s.free, id, err
}

func TestNotEnoughSpaceRefusedWithShortfall(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1 := e.dest("d1")
	o := e.opts([]string{a, b}, []string{d1})
	o.FS = smallFS{FS: fsys.OS{}, free: 10 << 20}
	_, err := New(context.Background(), o)
	require.ErrorContains(t, err, "not enough space on "+d1)
	require.ErrorContains(t, err, "10.5 MB is free")
	require.ErrorContains(t, err, "margin of 67.1 MB")
	_, err = os.Lstat(filepath.Join(d1, "day01"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written after a refusal")
	// A refusal before the first byte leaves no job (issue 26 item 5).
	jobs, err := e.cat.Jobs()
	require.NoError(t, err)
	require.Empty(t, jobs, "no job recorded by a refusal")
	// The next job is recorded as usual.
	o.FS = fsys.OS{}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	j.Close()
}

// The figures of a refusal add up: copies + margin = in all; in all - free
// = short, each as printed (decimal units, rounded the same way).
func TestSpaceShortfallAddsUp(t *testing.T) {
	for _, c := range []struct{ need, free int64 }{{100e6, 31_500_000}, {5e12, 4_990e9}, {1, 0}} {
		msg := spaceShortfall(c.need, c.free)
		total := c.need + SpaceMargin
		require.Contains(t, msg, "the copies need "+units.FormatBytes(c.need))
		require.Contains(t, msg, ": "+units.FormatBytes(total)+" in all")
		require.Contains(t, msg, units.FormatBytes(c.free)+" is free, "+units.FormatBytes(total-c.free)+" short")
	}
	require.Empty(t, spaceShortfall(100, 100+SpaceMargin))
}
