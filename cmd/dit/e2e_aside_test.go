//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "8MB", "--style", "clips", "--seed", "1")
	require.Equal(t, 0, r.code, r.stderr)
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

	r = dit(t, db, "offload", "--name", "day01", "-d", good, "-d", dest.Dir(), card)
	out := r.stdout + r.stderr
	require.Equal(t, 3, r.code, "a copy that fails its read-back fails the job:\n%s", out)

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
	js := dit(t, db, "job", "show", "1")
	require.Contains(t, js.stdout, shown, "dit job show names the .dit-failed copy:\n%s", js.stdout)

	r = dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.code, "resume:\n%s%s", r.stdout, r.stderr)
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
	v := dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 0, v.code, "dit mhl verify %s:\n%s%s", folder, v.stdout, v.stderr)
	if _, err := exec.LookPath("python3"); err == nil {
		res := runTool(t, filepath.Join(referenceTool(t), "ascmhl-debug"), "verify", folder)
		require.Equal(t, 0, res.code, "ascmhl-debug verify %s:\n%s", folder, res.out)
	}
	require.Equal(t, footage(tree(t, card)), withoutHistory(tree(t, filepath.Join(backing, "day01", "A001"))), "nothing but the card's files (no .dit-failed) on the destination")
}
