//go:build linux

package faults

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestFaultDestFlipsBitCopyMovedAside: a destination stores one bit of a
// clip wrong. The copy fails its read-back and is moved aside to
// NAME.dit-failed (named in the summary and in dit job show): no file under
// the clip's real name holds wrong bytes. A resume with the fault gone
// copies the clip again to its real name, verifies it and removes the
// .dit-failed copy.
func TestFaultDestFlipsBitCopyMovedAside(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "8MB", "--style", "clips", "--seed", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	card := filepath.Join(cards, "A001")
	victim, size := largestClip(t, card)
	want, err := os.ReadFile(filepath.Join(card, filepath.FromSlash(victim)))
	require.NoError(t, err)

	backing := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(backing, 0o755))
	dest := mountCard(t, backing, "shuttle")
	good := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(good, 0o755))
	dest.FlipBitOnWrite(filepath.Base(victim), size/2)

	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", good, "-d", dest.Dir(), card)
	out := r.Stdout + r.Stderr
	require.Equal(t, 3, r.Code, "a copy that fails its read-back fails the job:\n%s", out)

	// No file under a real name has wrong bytes; the failed copy is aside.
	var aside []string
	require.NoError(t, filepath.WalkDir(backing, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.Type().IsRegular() {
			return nil
		}
		if strings.HasSuffix(p, ".dit-failed") {
			aside = append(aside, p)
			return nil
		}
		if filepath.Base(p) == filepath.Base(victim) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, b), "%s under the clip's real name holds wrong bytes", p)
		}
		return nil
	}))
	require.Len(t, aside, 1, "the failed copy is kept aside as NAME.dit-failed")
	require.Equal(t, filepath.Base(victim)+".dit-failed", filepath.Base(aside[0]))
	b, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	require.False(t, bytes.Equal(want, b), "the aside copy holds the flipped bit")
	require.NoFileExists(t, strings.TrimSuffix(aside[0], ".dit-failed"))
	shown := filepath.Join(dest.Dir(), strings.TrimPrefix(aside[0], backing))
	require.Contains(t, out, shown, "the summary names the .dit-failed copy:\n%s", out)
	js := e2e.Dit(t, db, "job", "show", "1")
	require.Contains(t, js.Stdout, shown, "dit job show names the .dit-failed copy:\n%s", js.Stdout)

	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "resume:\n%s%s", r.Stdout, r.Stderr)
	s := showJob(t, db, 1)
	require.True(t, s.Cards[0].SafeToFormat)
	require.NoFileExists(t, aside[0], "the resume removed the .dit-failed copy")
	for _, f := range s.Cards[0].FileList {
		if f.Path != victim {
			continue
		}
		require.Equal(t, "verified", f.State)
		for _, c := range f.Copies {
			require.Equal(t, "verified", c.State, c.Path)
			got, err := os.ReadFile(c.Path)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "the copy %s equals the card", c.Path)
		}
	}
	folder := filepath.Join(backing, "day01", "A001")
	v := e2e.Dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 0, v.Code, "dit mhl verify %s:\n%s%s", folder, v.Stdout, v.Stderr)
	if _, err := exec.LookPath("python3"); err == nil {
		res := e2e.RunTool(t, filepath.Join(e2e.ReferenceTool(t), "ascmhl-debug"), "verify", folder)
		require.Equal(t, 0, res.Code, "ascmhl-debug verify %s:\n%s", folder, res.Out)
	}
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(backing, "day01", "A001"))), "nothing but the card's files (no .dit-failed) on the destination")
}
