//go:build !windows

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/offload"
)

// usageCard makes a small card folder and a destination folder.
func usageCard(t *testing.T, dir string) (card, dest string) {
	t.Helper()
	card, dest = filepath.Join(dir, "cards", "A001"), filepath.Join(dir, "d1")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	require.NoError(t, os.MkdirAll(dest, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", "C001.mov"), []byte(strings.Repeat("frame ", 5000)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", "C002.mov"), []byte("short clip"), 0o644))
	return card, dest
}

func jobCount(t *testing.T, db string) int {
	t.Helper()
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var jobs []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	return len(jobs)
}

// Issue 26 item 5: after a card was offloaded once, every mistake on the
// command line is still a usage error (exit 2) naming the value, checked
// before the catalog is asked which cards were offloaded; none records a
// job.
func TestUsageMistakesAfterOffload(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	card, d1 := usageCard(t, dir)
	r := e2e.Dit(t, db, "offload", "-d", d1, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, 1, jobCount(t, db))
	file := filepath.Join(dir, "notacard.mov")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no -d", []string{card}, "no destination: give at least one -d DEST"},
		{"-d twice", []string{"-d", d1, "-d", d1 + "/", card}, "destination " + d1 + "/ is given twice"},
		{"bad layout", []string{"-d", d1, "--layout", "{job}/{cam}", card}, `--layout: "{job}/{cam}": unknown placeholder`},
		{"layout without card", []string{"-d", d1, "--layout", "{job}", card}, `--layout: "{job}": it must contain {card}`},
		{"missing card", []string{"-d", d1, filepath.Join(dir, "cards", "A002")}, "card " + filepath.Join(dir, "cards", "A002") + " does not exist"},
		{"card is a file", []string{"-d", d1, file}, "card " + file + " is not a folder"},
		{"missing dest", []string{"-d", filepath.Join(dir, "nodisk"), card}, "destination " + filepath.Join(dir, "nodisk") + " does not exist"},
		{"dest is a file", []string{"-d", file, card}, "destination " + file + " is not a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e2e.Dit(t, db, append([]string{"offload"}, c.args...)...)
			require.Equal(t, e2e.ExitUsage, r.Code, "stdout %q stderr %q", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, c.want)
			require.NotContains(t, r.Stdout, "Nothing to copy")
		})
	}
	require.Equal(t, 1, jobCount(t, db), "no job recorded by a refusal")
}

// --db naming a folder that does not exist: offload refuses (exit 2),
// naming it, and creates neither the folder nor a catalog.
func TestOffloadDBMissingFolder(t *testing.T) {
	dir := t.TempDir()
	card, d1 := usageCard(t, dir)
	missing := filepath.Join(dir, "nonexistent", "dir")
	r := e2e.RunDit(t, os.Environ(), "offload", "--db", filepath.Join(missing, "c.db"), "-d", d1, card)
	require.Equal(t, e2e.ExitUsage, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "its folder "+missing+" does not exist")
	require.Contains(t, r.Stderr, "mkdir -p")
	_, err := os.Stat(filepath.Join(dir, "nonexistent"))
	require.ErrorIs(t, err, os.ErrNotExist, "no folder created")
	ents, err := os.ReadDir(d1)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
	// In an existing folder, offload creates the catalog.
	r = e2e.RunDit(t, os.Environ(), "offload", "--db", filepath.Join(dir, "new.db"), "-d", d1, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.FileExists(t, filepath.Join(dir, "new.db"))
}

// A destination refused before the first byte (here: in use by another
// offload) leaves no job behind, only the message.
func TestRefusalBeforeFirstByteRecordsNoJob(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	card, d1 := usageCard(t, dir)
	f, err := os.OpenFile(filepath.Join(d1, offload.LockName), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("pid 1 on elsewhere, job 9, since 09:00\n")
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	r := e2e.Dit(t, db, "offload", "-d", d1, card)
	require.Equal(t, offload.ExitFatal, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "destination "+d1+" is in use by another dit offload")
	require.Equal(t, 0, jobCount(t, db), "no job recorded")
	r = e2e.Dit(t, db, "jobs")
	require.NotContains(t, r.Stdout, "NOT safe")
}

// A resume of a finished job with nothing to do changes nothing in the
// catalog (finish time, runs) and says so.
func TestResumeDoneJobNothingToDo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	card, d1 := usageCard(t, dir)
	r := e2e.Dit(t, db, "offload", "-d", d1, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	before := e2e.Dit(t, db, "job", "show", "1", "--json")
	require.Equal(t, 0, before.Code, before.Stderr)
	for range 2 {
		r = e2e.Dit(t, db, "offload", "--resume", "1")
		require.Equal(t, 0, r.Code, r.Stderr)
		require.Contains(t, r.Stdout, "nothing to do: job 1 is done")
		require.NotContains(t, r.Stdout, "copying")
		after := e2e.Dit(t, db, "job", "show", "1", "--json")
		require.Equal(t, before.Stdout, after.Stdout, "the catalog's job is unchanged")
	}
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"nothing_to_do":true`)
	require.Contains(t, r.Stderr, "nothing to do: job 1 is done")
}

// Global flags show only on the commands that use them.
func TestGlobalFlagsOnlyWhereUsed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	for _, c := range []string{"hash", "testdata", "devices"} {
		r := e2e.Dit(t, db, c, "--help")
		require.Equal(t, 0, r.Code, r.Stderr)
		for _, f := range []string{"--db", "--station", "--sync-to"} {
			require.NotContains(t, r.Stdout, f, "dit %s --help", c)
		}
	}
	for _, c := range [][]string{{"offload"}, {"jobs"}, {"job", "show"}, {"report"}} {
		r := e2e.Dit(t, db, append(c, "--help")...)
		require.Equal(t, 0, r.Code, r.Stderr)
		require.Contains(t, r.Stdout, "--db", "dit %v --help", c)
	}
	r := e2e.Dit(t, db, "offload", "--help")
	require.Contains(t, r.Stdout, "--sync-to")
	require.Contains(t, r.Stdout, "--station")
	r = e2e.Dit(t, db, "hash", "--db", db)
	require.Equal(t, e2e.ExitUsage, r.Code)
	require.Contains(t, r.Stderr, "unknown flag: --db")
}

// A resume given a catalog that does not exist says so (exit 2, as every
// command that reads the catalog) and creates none.
func TestResumeNeedsItsCatalog(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.db")
	r := e2e.Dit(t, typo, "offload", "--resume", "3")
	require.Equal(t, e2e.ExitUsage, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "no catalog at "+typo)
	require.NoFileExists(t, typo)
}

// dit plan given a --db (or DIT_DB) in a folder that does not exist
// refuses (exit 2), naming it, and creates neither the folder nor a
// catalog, with or without the CPU benchmark that the catalog caches; in
// an existing folder it plans.
func TestPlanDBMissingFolder(t *testing.T) {
	dir := t.TempDir()
	card, d1 := usageCard(t, dir)
	missing := filepath.Join(dir, "nonexistent", "dir")
	db := filepath.Join(missing, "c.db")
	for _, r := range []e2e.Result{
		e2e.RunDit(t, os.Environ(), "plan", "--db", db, "-d", d1, card),
		e2e.RunDit(t, os.Environ(), "plan", "--db", db, "--no-cpu", "-d", d1, card),
		e2e.Dit(t, db, "plan", "-d", d1, card),
	} {
		require.Equal(t, e2e.ExitUsage, r.Code, r.Stdout+r.Stderr)
		require.Contains(t, r.Stderr, "catalog "+db+" (--db or DIT_DB): its folder "+missing+" does not exist")
		require.Contains(t, r.Stderr, "mkdir -p "+missing)
		require.Empty(t, r.Stdout, "no plan printed")
		require.NoDirExists(t, filepath.Join(dir, "nonexistent"), "no folder created")
	}
	r := e2e.RunDit(t, os.Environ(), "plan", "--db", filepath.Join(dir, "plan.db"), "-d", d1, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "Plan: 1 card -> 1 destination")
}

// A missing or invalid --notify-config is a usage error (exit 2) naming
// the file, said before any catalog is opened: a card offloaded before
// does not hide it ("Nothing to copy"), a new --db gets no catalog, and a
// resume is refused before its catalog is looked up.
func TestNotifyConfigCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	card, d1 := usageCard(t, dir)
	r := e2e.Dit(t, db, "offload", "--notify-config", "none", "-d", d1, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	missing := filepath.Join(dir, "no-such-notify.yaml")
	bad := filepath.Join(dir, "bad-notify.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("notify:\n  webhook: [\n"), 0o600))
	fresh := filepath.Join(dir, "fresh.db")
	for _, c := range []struct{ file, want string }{
		{missing, "dit: --notify-config: " + missing + " does not exist: give the file that holds the notify: section, or --notify-config none"},
		{bad, "dit: --notify-config: " + bad + ": line 2"},
	} {
		for _, run := range []struct {
			db   string
			args []string
		}{
			{db, []string{"offload", "--notify-config", c.file, "-d", d1, card}},
			{fresh, []string{"offload", "--notify-config", c.file, "-d", d1, card}},
			{fresh, []string{"offload", "--resume", "1", "--notify-config", c.file}},
		} {
			r := e2e.Dit(t, run.db, run.args...)
			require.Equal(t, e2e.ExitUsage, r.Code, "%v: %s", run.args, r.Stdout+r.Stderr)
			require.Contains(t, r.Stderr, c.want, run.args)
			require.NotContains(t, r.Stdout+r.Stderr, "Nothing to copy")
			require.NotContains(t, r.Stderr, "no catalog", "the config is checked before the catalog")
			require.NoFileExists(t, fresh, "no catalog created")
		}
	}
	require.Equal(t, 1, jobCount(t, db), "no job recorded by a refusal")
}
