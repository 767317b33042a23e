package offload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// A card that joins a running cascade (Job.AddCard) gets both runs too:
// free, then safe to format, its shuttle copy identical to the card. The
// card-free event of each card comes before its second run's first file.
func TestCascadeAddCardGetsBothRuns(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{a}, []string{first})
	o.Then = []string{shuttle}
	o.BlockSize = 16 << 10
	o.Throttle = 300_000
	added := make(chan error, 1)
	var j *Job
	var order []string
	o.OnEvent = func(ev Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		if ev.Type == EvCardFree || (ev.Type == EvFile && ev.Hop == 2) {
			order = append(order, string(ev.Type)+" "+ev.Card)
		}
		e.mu.Unlock()
		if ev.Type == EvFile && ev.Card == "A001" && len(added) == 0 {
			go func() {
				_, err := j.AddCard(b)
				added <- err
			}()
		}
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.NoError(t, <-added)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.Len(t, s.Cards, 2, "one entry per card, not per run")
	require.Equal(t, []string{shuttle}, s.Then)
	require.Equal(t, []string{first}, s.Destinations)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat, "%s: %s", c.Label, c.Verdict)
		require.True(t, c.CardFree)
		require.False(t, c.SafeAt.Before(c.FreeAt))
		require.NotNil(t, c.Then)
		require.Equal(t, StateVerified, c.Then.State)
		src := a
		if c.Label == "B001" {
			src = b
		}
		got := treeHashes(t, filepath.Join(shuttle, "day01", c.Label))
		for rel, h := range treeHashes(t, src) {
			require.Equal(t, h, got[rel], "%s/%s on the shuttle", c.Label, rel)
		}
	}
	// Each card's card_free comes before any file of its second run.
	seenFree := map[string]bool{}
	for _, ev := range order {
		var card string
		switch {
		case len(ev) > len(EvCardFree) && ev[:len(EvCardFree)] == string(EvCardFree):
			seenFree[ev[len(EvCardFree)+1:]] = true
			continue
		default:
			card = ev[len(EvFile)+1:]
		}
		require.True(t, seenFree[card], "a second-run file of %s before its card_free: %v", card, order)
	}
	require.True(t, seenFree["A001"] && seenFree["B001"])
}

// The job refuses a cascade it cannot run, before anything is written.
func TestCascadeRefusals(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{a}, []string{first})
	o.Then, o.Verify = []string{shuttle}, VerifyNone
	_, err := New(context.Background(), o)
	require.ErrorContains(t, err, "--then with --verify none")
	o = e.opts([]string{a}, nil)
	o.Then = []string{shuttle}
	_, err = New(context.Background(), o)
	require.ErrorContains(t, err, "--then without -d")
	o = e.opts([]string{a}, []string{first})
	o.Then = []string{first}
	_, err = New(context.Background(), o)
	require.ErrorContains(t, err, "given twice")
}

// A card a cascade made safe to format is "already offloaded" to the
// cascade's destinations, first-run and --then alike (inserted again, dit
// watch skips it); a --then destination whose copy is gone is missing.
func TestCascadeCardKnownAsOffloaded(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{a}, []string{first})
	o.Then = []string{shuttle}
	o.MHL = "none" // no Seal here: no hash lists to find with the copies
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	priors, _, err := FindPrior(context.Background(), e.cat, fsys.OS{}, []string{a}, false, nil, first, shuttle)
	require.NoError(t, err)
	require.Len(t, priors, 1)
	require.NotNil(t, priors[0], "offloaded before")
	require.True(t, priors[0].Done(), "done on both: %s", priors[0].Message())
	require.ElementsMatch(t, []string{first, shuttle}, priors[0].Covered)

	require.NoError(t, os.RemoveAll(filepath.Join(shuttle, "day01", "A001")))
	priors, _, err = FindPrior(context.Background(), e.cat, fsys.OS{}, []string{a}, false, nil, first, shuttle)
	require.NoError(t, err)
	require.NotNil(t, priors[0])
	require.False(t, priors[0].Done())
	require.Equal(t, []string{shuttle}, priors[0].Missing)
}

// A cascade whose second run did not end verified (its hash lists on the
// shuttle failed) leaves the card NOT safe, and not "already offloaded"
// to the shuttle either.
func TestCascadeSecondRunNotSafeIsNotOffloaded(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{a}, []string{first})
	o.Then = []string{shuttle}
	o.MHL = "none"
	o.Seal = func(_ context.Context, info SealInfo) error {
		if info.DestRoot == shuttle {
			return errors.New("no space left for the hash lists")
		}
		return nil
	}
	s, err := e.run(o)
	require.NoError(t, err)
	require.False(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	priors, _, err := FindPrior(context.Background(), e.cat, fsys.OS{}, []string{a}, false, nil, first, shuttle)
	require.NoError(t, err)
	require.NotNil(t, priors[0], "verified on the first copy")
	require.False(t, priors[0].Done())
	require.Equal(t, []string{shuttle}, priors[0].Missing)
	require.Contains(t, priors[0].Message(), first)
}

// countOpens counts the read-backs (OpenNoCache) of each path.
type countOpens struct {
	fsys.OS
	mu sync.Mutex
	n  map[string]int
}

func (c *countOpens) OpenNoCache(name string) (fsys.File, error) {
	c.mu.Lock()
	c.n[name]++
	c.mu.Unlock()
	return c.OS.OpenNoCache(name)
}

// Recheck of a cascade reads each copy once, on the destinations of the
// run that made it, and keeps the card safe to format; rows an older dit
// verify wrote on the other run's destinations are dropped.
func TestCascadeRecheckReadsEachCopyOnce(t *testing.T) {
	e := newEnv(t)
	a, _ := twoCards(t, e)
	first, shuttle := e.dest("raid"), e.dest("shuttle")
	o := e.opts([]string{a}, []string{first})
	o.Then = []string{shuttle}
	o.MHL = "none"
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)
	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	require.Len(t, cards, 2)
	dests, err := e.cat.Dests(s.JobID)
	require.NoError(t, err)
	// What the old dit verify left: the card on the shuttle.
	e.cat.PutCopy(cards[0].ID, "CLIPS/C001.mov", &catalog.Copy{DestID: dests[1].ID, Path: "day01/A001/CLIPS/C001.mov", State: StateVerified})
	require.NoError(t, e.cat.Flush())
	s2, err := LoadSummary(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, s2.Cards[0].SafeToFormat, "a stray row does not count: %s", s2.Cards[0].Verdict)

	fs := &countOpens{n: map[string]int{}}
	ok, err := Recheck(context.Background(), e.cat, fs, s.JobID, false, nil)
	require.NoError(t, err)
	require.True(t, ok)
	want := map[string]int{}
	for _, root := range []string{first, shuttle} {
		for rel := range treeHashes(t, filepath.Join(root, "day01", "A001")) {
			want[filepath.Join(root, "day01", "A001", filepath.FromSlash(rel))] = 1
		}
	}
	require.Equal(t, want, fs.n, "each copy read once")
	for i, k := range cards {
		files, err := e.cat.Files(k.ID)
		require.NoError(t, err)
		for _, f := range files {
			require.Len(t, f.Copies, 1, "%s of card row %d", f.Rel, i)
			require.Equal(t, dests[i].ID, f.Copies[0].DestID)
		}
	}
	s3, err := LoadSummary(e.cat, s.JobID)
	require.NoError(t, err)
	require.True(t, s3.Cards[0].SafeToFormat, s3.Cards[0].Verdict)
	require.Equal(t, s.Cards[0].SafeAt, s3.Cards[0].SafeAt)
	require.Equal(t, s.Cards[0].FreeAt, s3.Cards[0].FreeAt)
}
