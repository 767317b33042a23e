package cascade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
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
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var jobs []struct {
		Cards []verdictCard `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	require.Len(t, jobs, 1)
	return jobs[0].Cards
}

func showCards(t *testing.T, db string, job int64) []verdictCard {
	t.Helper()
	r := e2e.Dit(t, db, "job", "show", e2e.Itoa(job), "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var s struct {
		Cards []verdictCard `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s), r.Stdout)
	return s.Cards
}

type dayCards struct {
	Safe   []struct{ Label string } `json:"safe_to_format"`
	NotYet []struct{ Label string } `json:"not_yet"`
}

func day(t *testing.T, db string) dayCards {
	t.Helper()
	r := e2e.Dit(t, db, "day", "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var d dayCards
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &d), r.Stdout)
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
	r := e2e.Dit(t, db, "find", q, "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var out []foundCopy
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
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
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "31")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	r = e2e.Dit(t, db, "offload", "--name", "day01", "--json", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	files := sum.Cards[0].Files
	require.Positive(t, files)
	first := filepath.Join(raid, "day01", "A001")
	// The second run copied the first copy's folder: the card's files and
	// the first run's hash lists.
	secondFiles := len(e2e.Tree(t, first))
	require.Greater(t, secondFiles, files)

	before := jobsCards(t, db)
	require.Len(t, before, 1)
	require.True(t, before[0].SafeToFormat, before[0].Verdict)
	require.True(t, before[0].CardFree)

	r = e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	// One read per copy: the card's files on the RAID, the second run's
	// on the shuttle; none on the other run's destination.
	m := regexp.MustCompile(`reading back (\d+) copies`).FindStringSubmatch(r.Stderr)
	require.NotNil(t, m, r.Stderr)
	n, _ := strconv.Atoi(m[1])
	require.Equal(t, files+secondFiles, n, "copies read back: %s", r.Stderr)
	require.Contains(t, r.Stdout, "job 1: "+m[1]+" copies match the source hashes, 0 differ or are missing")

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
	require.Equal(t, "A001", d.Safe[0].Label)
	require.Empty(t, d.NotYet)

	// A shuttle file and another file on the RAID change.
	victims := e2e.BigFiles(t, first)
	onShuttle := filepath.Join(shuttle, "day01", "A001", filepath.FromSlash(victims[0]))
	onRAID := filepath.Join(first, filepath.FromSlash(victims[1]))
	e2e.FlipByte(t, onShuttle)
	e2e.FlipByte(t, onRAID)
	r = e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, onShuttle)
	require.Contains(t, r.Stdout, onRAID)
	require.Contains(t, r.Stdout, "2 differ or are missing")

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
	r = e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "failed "+onShuttle+": xxh64 differs")
	require.Contains(t, r.Stdout, "failed "+onRAID+": xxh64 differs")
	require.NotContains(t, r.Stdout, "never copied")
	require.False(t, jobsCards(t, db)[0].SafeToFormat)
}

// requireFoundDifferent: the damaged first copy is failed by one of the
// two checks that read it, whichever comes first after the Ctrl-C: the
// second run reading it as its source, or the resume re-reading a
// verified copy whose identity (size, mtime, ctime) changed since. On a
// loaded machine the Ctrl-C can land when either is first.
func requireFoundDifferent(t *testing.T, msg, what string) {
	t.Helper()
	if !strings.Contains(msg, "differs from the card (found by the second run)") {
		require.Contains(t, msg, "changed since: its bytes differ from the card's now", what)
	}
}

// A first copy that changed after the first run verified it is found by
// the second run, which reads it: that copy is failed at once, everywhere
// (the summary, dit job show, dit find), the card is neither free nor safe
// to format, and inserted again it is not "already offloaded" to the RAID.
func TestCascadeFirstCopyProvedDifferentIsFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "32")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")

	// Stop after the first run (Ctrl-C at the card-free event), damage a
	// file of the first copy, resume: the second run reads it.
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := e2e.BigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	e2e.FlipByte(t, victim)
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)

	var sum struct {
		Type  string        `json:"type"`
		Cards []verdictCard `json:"cards"`
	}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if strings.Contains(l, `"type":"summary"`) {
			require.NoError(t, json.Unmarshal([]byte(l), &sum))
		}
	}
	require.Len(t, sum.Cards, 1, e2e.Tail(r.Stdout))
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
				requireFoundDifferent(t, f.Error, what)
			}
		}
		require.True(t, found, "%s: %s among the first run's failures: %+v", what, rel, c.Failures)
	}
	resumed := r.Stdout
	defer func() {
		if t.Failed() {
			t.Logf("the resume's output:\n%s", e2e.Tail(resumed))
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
		requireFoundDifferent(t, f.Copies[0].Error, "dit find")
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
	r = e2e.Dit(t, db, "offload", "--name", "day02", "-d", raid, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "Nothing to copy")
	require.NotContains(t, r.Stdout, "verified (to")
	require.Contains(t, r.Stdout, "Verified: safe to format")
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(raid, "day02", "A001"))))
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
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "33")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := e2e.BigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	onShuttle := filepath.Join(shuttle, "day01", "A001", filepath.FromSlash(rel))
	e2e.FlipByte(t, victim)
	require.NoError(t, os.Rename(card, card+"-away"))
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)

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
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.NotEqual(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout+r.Stderr, "it is NOT free; keep it")
	require.NotContains(t, r.Stdout+r.Stderr, "this resume does not need it")
	require.NoFileExists(t, onShuttle, "the damaged first copy is not copied to the shuttle")
	require.Equal(t, map[string]string{victim: "failed", onShuttle: "failed"}, copies())
	require.False(t, jobsCards(t, db)[0].SafeToFormat)

	// The card is back: the first run copies the file again, the second
	// run copies that.
	require.NoError(t, os.Rename(card+"-away", card))
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	want, err := os.ReadFile(filepath.Join(card, filepath.FromSlash(rel)))
	require.NoError(t, err)
	for _, p := range []string{victim, onShuttle} {
		got, err := os.ReadFile(p)
		require.NoError(t, err, r.Stdout+r.Stderr)
		require.Equal(t, want, got, "%s is the card's file again", p)
	}
	require.Equal(t, map[string]string{victim: "verified", onShuttle: "verified"}, copies(), r.Stdout+r.Stderr)
}

// A file gone from the first copy when the second run reads it is failed
// on the first copy too: the card is no longer free, and dit find says so.
func TestCascadeFirstCopyGoneIsFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "34")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 130, code)
	first := filepath.Join(raid, "day01", "A001")
	rel := e2e.BigFiles(t, first)[0]
	victim := filepath.Join(first, filepath.FromSlash(rel))
	require.NoError(t, os.Remove(victim))
	// The card is away (mounted, the resume would copy the file to the
	// RAID again first).
	require.NoError(t, os.Rename(card, card+"-away"))
	r = e2e.Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
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
