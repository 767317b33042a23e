package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// verdictCard is a card as dit jobs --json, dit job show --json and the
// offload summary give it (the fields these tests read).
type verdictCard struct {
	Label        string    `json:"label"`
	Files        int       `json:"files"`
	Failed       int       `json:"failed"`
	SafeToFormat bool      `json:"safe_to_format"`
	CardFree     bool      `json:"card_free"`
	FreeAt       time.Time `json:"card_free_at"`
	SafeAt       time.Time `json:"safe_to_format_at"`
	Verdict      string    `json:"verdict"`
	Destinations []struct {
		Path     string `json:"path"`
		Verified int    `json:"verified"`
		Failed   int    `json:"failed"`
	} `json:"destinations"`
	Failures []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"failures"`
	Then *struct {
		Failed       int `json:"failed"`
		Destinations []struct {
			Path     string `json:"path"`
			Verified int    `json:"verified"`
			Failed   int    `json:"failed"`
		} `json:"destinations"`
	} `json:"then"`
	FileList []struct {
		Path   string `json:"path"`
		State  string `json:"state"`
		Error  string `json:"error"`
		Copies []struct {
			Dest  string `json:"dest"`
			Path  string `json:"path"`
			State string `json:"state"`
			Error string `json:"error"`
		} `json:"copies"`
	} `json:"file_list"`
}

func jobsCards(t *testing.T, db string) []verdictCard {
	t.Helper()
	r := dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var jobs []struct {
		Cards []verdictCard `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &jobs), r.stdout)
	require.Len(t, jobs, 1)
	return jobs[0].Cards
}

func showCards(t *testing.T, db string, job int64) []verdictCard {
	t.Helper()
	r := dit(t, db, "job", "show", itoa(job), "--json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var s struct {
		Cards []verdictCard `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	return s.Cards
}

type dayCards struct {
	Safe   []struct{ Card string } `json:"safe_to_format"`
	NotYet []struct{ Card string } `json:"not_yet"`
}

func day(t *testing.T, db string) dayCards {
	t.Helper()
	r := dit(t, db, "day", "--json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var d dayCards
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d), r.stdout)
	return d
}

type foundCopy struct {
	Hop   int    `json:"hop"`
	File  string `json:"file"`
	Path  string `json:"path"`
	State string `json:"state"`
}

func find(t *testing.T, db, q string) []foundCopy {
	t.Helper()
	r := dit(t, db, "find", q, "--json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var out []foundCopy
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	return out
}

// flipByte changes one byte in the middle of a file, keeping its size and
// modification time (what a stat sees).
func flipByte(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x01
	require.NoError(t, os.WriteFile(p, b, 0o644))
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
}

// bigFiles lists the footage files of a card folder over 1000 bytes,
// sorted (the hash lists left out).
func bigFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for rel := range footage(withoutHistory(tree(t, root))) {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		if fi.Size() > 1000 {
			out = append(out, rel)
		}
	}
	require.GreaterOrEqual(t, len(out), 2)
	sort.Strings(out)
	return out
}

// dit verify of a cascade job reads each copy once, on the destinations of
// the run that made it (the card's files on the -d destination, the second
// run's on the --then one), and keeps the verdict when all match: the card
// stays safe to format with its free and safe times, no count doubles.
// A copy that differs afterwards, on the shuttle or on the first copy,
// withdraws it: dit verify names both, exits 3, and every view says the
// card is NOT safe.
func TestCascadeVerifyKeepsAndWithdrawsTheVerdict(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "31")
	require.Equal(t, 0, r.code, r.stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	r = dit(t, db, "offload", "--name", "day01", "--json", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	sum, _ := lastSummary(t, r.stdout)
	files := sum.Cards[0].Files
	require.Positive(t, files)
	first := filepath.Join(raid, "day01", "A001")
	// The second run copied the first copy's folder: the card's files and
	// the first run's hash lists.
	secondFiles := len(tree(t, first))
	require.Greater(t, secondFiles, files)

	before := jobsCards(t, db)
	require.Len(t, before, 1)
	require.True(t, before[0].SafeToFormat, before[0].Verdict)
	require.True(t, before[0].CardFree)

	r = dit(t, db, "verify", "1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	// One read per copy: the card's files on the RAID, the second run's
	// on the shuttle; none on the other run's destination.
	m := regexp.MustCompile(`reading back (\d+) copies`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, r.stderr)
	n, _ := strconv.Atoi(m[1])
	require.Equal(t, files+secondFiles, n, "copies read back: %s", r.stderr)
	require.Contains(t, r.stdout, "job 1: "+m[1]+" copies match the source hashes, 0 differ or are missing")

	after := jobsCards(t, db)
	require.True(t, after[0].SafeToFormat, "dit verify found every copy matching: %s", after[0].Verdict)
	require.True(t, after[0].CardFree)
	require.True(t, before[0].FreeAt.Equal(after[0].FreeAt), "free at %s, then %s", before[0].FreeAt, after[0].FreeAt)
	require.True(t, before[0].SafeAt.Equal(after[0].SafeAt), "safe at %s, then %s", before[0].SafeAt, after[0].SafeAt)

	show := showCards(t, db, 1)
	require.Len(t, show, 1)
	c := show[0]
	require.True(t, c.SafeToFormat, c.Verdict)
	require.Contains(t, c.Verdict, "Verified: safe to format")
	require.Len(t, c.Destinations, 1)
	require.Equal(t, files, c.Destinations[0].Verified, "RAID count")
	require.NotNil(t, c.Then)
	require.Len(t, c.Then.Destinations, 1)
	require.Equal(t, files, c.Then.Destinations[0].Verified, "shuttle count")
	require.Len(t, c.FileList, files)
	for _, f := range c.FileList {
		require.Len(t, f.Copies, 2, "%s: one copy on the RAID, one on the shuttle", f.Path)
		require.Equal(t, raid, f.Copies[0].Dest, f.Path)
		require.Equal(t, shuttle, f.Copies[1].Dest, f.Path)
	}
	d := day(t, db)
	require.Len(t, d.Safe, 1)
	require.Equal(t, "A001", d.Safe[0].Card)
	require.Empty(t, d.NotYet)

	// A shuttle file and another file on the RAID change.
	victims := bigFiles(t, first)
	onShuttle := filepath.Join(shuttle, "day01", "A001", filepath.FromSlash(victims[0]))
	onRAID := filepath.Join(first, filepath.FromSlash(victims[1]))
	flipByte(t, onShuttle)
	flipByte(t, onRAID)
	r = dit(t, db, "verify", "1")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, onShuttle)
	require.Contains(t, r.stdout, onRAID)
	require.Contains(t, r.stdout, "2 differ or are missing")

	after = jobsCards(t, db)
	require.False(t, after[0].SafeToFormat, after[0].Verdict)
	require.False(t, after[0].CardFree, "the first copy of %s differs: the card is not free", victims[1])
	c = showCards(t, db, 1)[0]
	require.False(t, c.SafeToFormat, c.Verdict)
	require.Contains(t, c.Verdict, "NOT safe to format")
	require.Equal(t, 1, c.Destinations[0].Failed)
	require.Equal(t, 1, c.Then.Destinations[0].Failed)
	for _, f := range c.FileList {
		for _, cp := range f.Copies {
			if (f.Path == victims[0] && cp.Dest == shuttle) || (f.Path == victims[1] && cp.Dest == raid) {
				require.Equal(t, "failed", cp.State, "%s on %s", f.Path, cp.Dest)
			} else {
				require.Equal(t, "verified", cp.State, "%s on %s", f.Path, cp.Dest)
			}
		}
	}
	d = day(t, db)
	require.Empty(t, d.Safe)
	require.Len(t, d.NotYet, 1)

	// Verified again, the bad copies are read again and still differ
	// (they are there: not "never copied").
	r = dit(t, db, "verify", "1")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "failed "+onShuttle+": xxh64 differs")
	require.Contains(t, r.stdout, "failed "+onRAID+": xxh64 differs")
	require.NotContains(t, r.stdout, "never copied")
	require.False(t, jobsCards(t, db)[0].SafeToFormat)
}

// A first copy that changed after the first run verified it is found by
// the second run, which reads it: that copy is failed at once, everywhere
// (the summary, dit job show, dit find), the card is neither free nor safe
// to format, and inserted again it is not "already offloaded" to the RAID.
func TestCascadeFirstCopyProvedDifferentIsFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "32")
	require.Equal(t, 0, r.code, r.stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")

	// Stop after the first run (Ctrl-C at the card-free event), damage a
	// file of the first copy, resume: the second run reads it.
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := bigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	flipByte(t, victim)
	r = dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)

	var sum struct {
		Type  string        `json:"type"`
		Cards []verdictCard `json:"cards"`
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(l, `"type":"summary"`) {
			require.NoError(t, json.Unmarshal([]byte(l), &sum))
		}
	}
	require.Len(t, sum.Cards, 1, tail(r.stdout))
	checkCard := func(what string, c verdictCard) {
		t.Helper()
		require.False(t, c.SafeToFormat, "%s: %s", what, c.Verdict)
		require.False(t, c.CardFree, "%s: the first copy differs from the card: not free", what)
		require.Contains(t, c.Verdict, "NOT safe to format", what)
		require.Len(t, c.Destinations, 1, what)
		require.Equal(t, 1, c.Destinations[0].Failed, "%s: the RAID copy", what)
		found := false
		for _, f := range c.Failures {
			if f.Path == rel {
				found = true
				require.Contains(t, f.Error, victim, what)
				require.Contains(t, f.Error, "differs from the card (found by the second run)", what)
			}
		}
		require.True(t, found, "%s: %s among the first run's failures: %+v", what, rel, c.Failures)
	}
	resumed := r.stdout
	defer func() {
		if t.Failed() {
			t.Logf("the resume's output:\n%s", tail(resumed))
		}
	}()
	checkCard("summary", sum.Cards[0])
	c := showCards(t, db, 1)[0]
	checkCard("job show", c)
	seen := false
	for _, f := range c.FileList {
		if f.Path != rel {
			continue
		}
		seen = true
		require.Equal(t, "failed", f.State)
		require.Equal(t, raid, f.Copies[0].Dest)
		require.Equal(t, "failed", f.Copies[0].State)
		require.Contains(t, f.Copies[0].Error, victim)
		require.Contains(t, f.Copies[0].Error, "differs from the card (found by the second run)")
	}
	require.True(t, seen)
	require.False(t, jobsCards(t, db)[0].SafeToFormat)

	// dit find: the RAID copy failed.
	var onRAID []foundCopy
	for _, f := range find(t, db, filepath.Base(rel)) {
		if f.File == rel && f.Path == victim {
			onRAID = append(onRAID, f)
		}
	}
	require.Len(t, onRAID, 1)
	require.Equal(t, "failed", onRAID[0].State)

	// Inserted again, the card is not "already offloaded" to the RAID: it
	// is copied there.
	r = dit(t, db, "offload", "--name", "day02", "-d", raid, card)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.NotContains(t, r.stdout, "Nothing to copy")
	require.NotContains(t, r.stdout, "verified (to")
	require.Contains(t, r.stdout, "Verified: safe to format")
	require.Equal(t, footage(tree(t, card)), withoutHistory(tree(t, filepath.Join(raid, "day02", "A001"))))
}

// A first copy withdrawn by the second run stays checked against the card
// on every later resume: with the card away, the resume does not copy the
// damaged first copy to the shuttle (nor call it verified there); with the
// card back, the first run copies the file from the card again and the
// second run then copies that, both verified and the card's bytes.
func TestCascadeWithdrawnFirstCopyOnResume(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "33")
	require.Equal(t, 0, r.code, r.stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := bigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	onShuttle := filepath.Join(shuttle, "day01", "A001", filepath.FromSlash(rel))
	flipByte(t, victim)
	require.NoError(t, os.Rename(card, card+"-away"))
	r = dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)

	copies := func() map[string]string {
		out := map[string]string{}
		for _, f := range find(t, db, filepath.Base(rel)) {
			if f.File == rel {
				out[f.Path] = f.State
			}
		}
		return out
	}
	// Resumed again with the card away: the first copy is still not the
	// card's, so it is not copied.
	r = dit(t, db, "offload", "--resume", "1")
	require.NotEqual(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout+r.stderr, "it is NOT free; keep it")
	require.NotContains(t, r.stdout+r.stderr, "this resume does not need it")
	require.NoFileExists(t, onShuttle, "the damaged first copy is not copied to the shuttle")
	require.Equal(t, map[string]string{victim: "failed", onShuttle: "failed"}, copies())
	require.False(t, jobsCards(t, db)[0].SafeToFormat)

	// The card is back: the first run copies the file again, the second
	// run copies that.
	require.NoError(t, os.Rename(card+"-away", card))
	r = dit(t, db, "offload", "--resume", "1")
	want, err := os.ReadFile(filepath.Join(card, filepath.FromSlash(rel)))
	require.NoError(t, err)
	for _, p := range []string{victim, onShuttle} {
		got, err := os.ReadFile(p)
		require.NoError(t, err, r.stdout+r.stderr)
		require.Equal(t, want, got, "%s is the card's file again", p)
	}
	require.Equal(t, map[string]string{victim: "verified", onShuttle: "verified"}, copies(), r.stdout+r.stderr)
}

// A file gone from the first copy when the second run reads it is failed
// on the first copy too: the card is no longer free, and dit find says so.
func TestCascadeFirstCopyGoneIsFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "34")
	require.Equal(t, 0, r.code, r.stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := bigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	require.NoError(t, os.Remove(victim))
	// The card is away (mounted, the resume would copy the file to the
	// RAID again first).
	require.NoError(t, os.Rename(card, card+"-away"))
	r = dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)
	c := showCards(t, db, 1)[0]
	require.False(t, c.SafeToFormat, c.Verdict)
	require.False(t, c.CardFree, "the first copy lost %s: the card is not free", rel)
	require.Equal(t, 1, c.Destinations[0].Failed)
	found := false
	for _, f := range c.Failures {
		if f.Path == rel {
			found = true
			require.Contains(t, f.Error, victim)
			require.Contains(t, f.Error, "is gone (found by the second run)")
		}
	}
	require.True(t, found, "%+v", c.Failures)
	for _, f := range find(t, db, filepath.Base(rel)) {
		if f.File == rel && f.Path == victim {
			require.Equal(t, "failed", f.State)
		}
	}
}
