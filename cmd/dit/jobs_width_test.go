package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// dit jobs keeps its columns aligned as a terminal shows them whatever
// the names: CJK characters and emoji take two cells, an NFD name's
// combining mark none. The widths here are counted by hand.
func TestJobsColumnsAlignWithWideAndCombiningNames(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	names := []struct {
		name  string
		width int // terminal cells
	}{
		{"Day 1", 5},
		{"東京ロケ 撮影", 13},     // six wide characters and a space
		{"🎬 Shoot", 8},      // a wide emoji, a space, five letters
		{"Ame\u0301lie", 6}, // NFD: A m e + combining acute, l i e
		{"Kamera Ａ", 9},     // fullwidth A
		{"Day 1 🎬 東京", 13},  // 5 + 1 + 2 + 1 + 4
	}
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.Local)
	for i, n := range names {
		j := &catalog.Job{Name: n.name, State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
			Layout: "{job}/{card}", OnConflict: "fail", Started: t0.Add(time.Duration(i) * time.Minute)}
		require.NoError(t, cat.CreateJob(j))
	}
	require.NoError(t, cat.Close())

	var out bytes.Buffer
	g := &GlobalOptions{DB: db, stdout: &out, stderr: os.Stderr}
	require.NoError(t, runJobs(JobsOptions{}, g))
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	// The STATE column starts at the same cell on every row: the cells
	// of the name plus the spaces after it are the same.
	col := -1
	for _, n := range names {
		var line string
		for _, l := range lines {
			if strings.Contains(l, " "+n.name+" ") {
				line = l
			}
		}
		require.NotEmpty(t, line, "%q listed:\n%s", n.name, out.String())
		after := line[strings.Index(line, " "+n.name+" ")+1+len(n.name):]
		spaces := len(after) - len(strings.TrimLeft(after, " "))
		require.True(t, strings.HasPrefix(after[spaces:], "done "), line)
		if col < 0 {
			col = n.width + spaces
		}
		require.Equal(t, col, n.width+spaces, "%q: its STATE column is shifted:\n%s", n.name, out.String())
	}
}
