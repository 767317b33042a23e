package assembly

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// env is a set: a real catalog and folders in t.TempDir().
type env struct {
	t   *testing.T
	dir string
	cat *catalog.Catalog
}

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	return &env{t: t, dir: dir, cat: cat}
}

func (e *env) folder(name string) string {
	p := filepath.Join(e.dir, name)
	require.NoError(e.t, os.MkdirAll(p, 0o755))
	return p
}

// card makes a card with a few clips of distinct content.
func (e *env) card(name string) string {
	root := e.folder(name)
	for i, f := range []string{"CLIPS/A001C001.MOV", "CLIPS/A001C002.MOV", "META/info.xml"} {
		p := filepath.Join(root, f)
		require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
		b := []byte(strings.Repeat(name+f, 3000+i*700))
		require.NoError(e.t, os.WriteFile(p, b, 0o644))
	}
	return root
}

func (e *env) settings(cards, dests []string) Settings {
	return Settings{Name: "day01", Cards: cards, Dests: dests, Catalog: e.cat,
		Copying: Copying{Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}, BlockSize: 64 << 10}}
}

func (e *env) jobs() int {
	js, err := e.cat.Jobs()
	require.NoError(e.t, err)
	return len(js)
}

// run assembles s and runs it to its end.
func (e *env) run(s Settings) (*Prepared, *Job, *offload.Summary) {
	ctx := context.Background()
	p, err := Prepare(ctx, s)
	require.NoError(e.t, err)
	require.False(e.t, p.NothingToCopy)
	j, err := p.Open(ctx)
	require.NoError(e.t, err)
	require.NoError(e.t, j.Start())
	sum, err := j.Run(ctx)
	require.NoError(e.t, err)
	require.Empty(e.t, j.Finish(ctx, sum, nil))
	return p, j, sum
}

func TestAssembledJobEndToEnd(t *testing.T) {
	e := newEnv(t)
	a, b := e.card("A001"), e.card("A002")
	d1, d2 := e.folder("RAID"), e.folder("SHUTTLE")
	var mu sync.Mutex
	var kinds []notify.Kind
	var events []offload.EventType
	s := e.settings([]string{a, b}, []string{d1, d2})
	s.Hooks.OnNotify = func(m notify.Message) { mu.Lock(); kinds = append(kinds, m.Kind); mu.Unlock() }
	s.Hooks.OnEvent = func(ev offload.Event) { mu.Lock(); events = append(events, ev.Type); mu.Unlock() }
	_, j, sum := e.run(s)

	require.Equal(t, verdict.Done, sum.Status)
	require.Equal(t, offload.ExitOK, sum.ExitCode)
	require.Len(t, sum.Cards, 2)
	for _, c := range sum.Cards {
		require.True(t, c.SafeToFormat, "card %s", c.Label)
		require.Equal(t, verdict.Safe, c.Status)
	}
	// The summary is the read model: the catalog says the same.
	again, err := offload.LoadSummary(e.cat, j.ID())
	require.NoError(t, err)
	require.Equal(t, sum.Status, again.Status)

	// Sealed: an ASC MHL history in each card's folder on each destination.
	for _, d := range []string{d1, d2} {
		for _, c := range []string{"A001", "A002"} {
			require.DirExists(t, filepath.Join(d, "day01", c, "ascmhl"))
		}
	}
	// Reports written into the destinations, and said.
	rep := j.Reports()
	require.NotEmpty(t, rep)
	for _, p := range rep {
		require.FileExists(t, p)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, events, offload.EvJobStarted)
	require.Contains(t, events, offload.EvCardDone)
	require.Contains(t, kinds, notify.SafeToFormat)
	require.Equal(t, notify.JobDone, kinds[len(kinds)-1], "the job's end is the last notification")
}

func TestPriorOffloadDecisions(t *testing.T) {
	e := newEnv(t)
	a, b := e.card("A001"), e.card("A002")
	raid, shuttle := e.folder("RAID"), e.folder("SHUTTLE")
	e.run(e.settings([]string{a, b}, []string{raid}))
	require.Equal(t, 1, e.jobs())
	ctx := context.Background()

	t.Run("every card on every destination: nothing to copy, no job", func(t *testing.T) {
		p, err := Prepare(ctx, e.settings([]string{a, b}, []string{raid}))
		require.NoError(t, err)
		require.True(t, p.NothingToCopy)
		require.Len(t, p.Decisions, 2)
		for _, d := range p.Decisions {
			require.Equal(t, Skipped, d.Kind)
			require.Equal(t, offload.EvAlreadyOffloaded, d.Event)
			require.Contains(t, d.Message, "skipped")
		}
		_, err = p.Open(ctx)
		require.Error(t, err)
		require.Equal(t, 1, e.jobs(), "nothing to copy creates no job")
	})

	t.Run("a destination every card already has is left out", func(t *testing.T) {
		s := e.settings([]string{a, b}, []string{raid, shuttle})
		s.Name = "day01-shuttle"
		p, err := Prepare(ctx, s)
		require.NoError(t, err)
		require.Equal(t, []string{shuttle}, p.Dests)
		require.Equal(t, []string{raid}, p.LeftOut)
		require.Len(t, p.Decisions, 2)
		for _, d := range p.Decisions {
			require.Equal(t, Narrowed, d.Kind)
			require.Contains(t, d.Message, "copying it to "+shuttle+" only")
		}
		j, err := p.Open(ctx)
		require.NoError(t, err)
		sum, err := j.Run(ctx)
		require.NoError(t, err)
		j.Finish(ctx, sum, nil)
		require.Equal(t, []string{shuttle}, sum.Destinations)
		require.Equal(t, verdict.Done, sum.Status)
		require.NoDirExists(t, filepath.Join(raid, "day01-shuttle"), "the destination left out got nothing")
	})

	t.Run("a new card with them: every destination", func(t *testing.T) {
		c := e.card("A003")
		p, err := Prepare(ctx, e.settings([]string{a, c}, []string{e.folder("THIRD"), raid}))
		require.NoError(t, err)
		require.Empty(t, p.LeftOut)
		require.Equal(t, []string{a, c}, p.Cards)
		require.Len(t, p.Decisions, 1)
		require.Equal(t, CopiedToAll, p.Decisions[0].Kind)
	})

	t.Run("again: all cards, or the cards named", func(t *testing.T) {
		s := e.settings([]string{a, b}, []string{raid})
		s.Again = true
		p, err := Prepare(ctx, s)
		require.NoError(t, err)
		require.Equal(t, []string{a, b}, p.Cards)
		require.Equal(t, CopiedAgain, p.Decisions[0].Kind)

		s.Again, s.AgainCards = false, []string{b}
		p, err = Prepare(ctx, s)
		require.NoError(t, err)
		require.Equal(t, []string{b}, p.Cards)
		require.Equal(t, []DecisionKind{Skipped, CopiedAgain}, []DecisionKind{p.Decisions[0].Kind, p.Decisions[1].Kind})
	})
}

func TestRefusedJobCreatesNoJob(t *testing.T) {
	e := newEnv(t)
	a := e.card("A001")
	ctx := context.Background()
	missing := filepath.Join(e.dir, "NOT-MOUNTED")
	p, err := Prepare(ctx, e.settings([]string{a}, []string{missing}))
	require.NoError(t, err)
	_, err = p.Open(ctx)
	require.Error(t, err)
	require.Contains(t, err.Error(), missing, "the error names the destination")
	require.Equal(t, 0, e.jobs(), "a refusal before the first byte creates no job")
	require.NoDirExists(t, missing)

	// A hash list the hashes cannot fill is refused before anything.
	s := e.settings([]string{a}, []string{e.folder("RAID")})
	s.MHL = "v1"
	s.Hashes = []hashing.Algo{hashing.XXH3}
	_, err = Prepare(ctx, s)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	s.MHL = "asc-and-more"
	_, err = Prepare(ctx, s)
	require.ErrorAs(t, err, &ue)
	require.Equal(t, 0, e.jobs())
}
