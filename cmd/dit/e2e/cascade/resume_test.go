package cascade

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
)

// destSnapshot is every file below the destinations (path and size), and
// the bytes of every ASC MHL file (chains and generations).
func destSnapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if d.Name() == ".dit.lock" {
				return nil // a running job's lock
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			v := e2e.Itoa(fi.Size())
			if strings.Contains(filepath.ToSlash(p), "/ascmhl/") {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				v = string(b)
			}
			out[p] = v
			return nil
		}))
	}
	return out
}

// shuttleHistory checks the history of a card's copy: it reads whole, its
// generations are the first copy's followed by want second-run ones (dit's
// own, process transfer), each named with its own creation time, and dit
// and the ASC reference tool accept it.
func shuttleHistory(t *testing.T, db, folder string, first []ascmhl.Generation, want int) []ascmhl.Generation {
	t.Helper()
	st, err := ascmhl.OpenOSStore(folder)
	require.NoError(t, err)
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	require.NoError(t, err, folder)
	require.Empty(t, h.Problems, folder)
	require.Len(t, h.Generations, len(first)+want, "generations in %s", folder)
	for i, g := range first {
		require.Equal(t, g.File, h.Generations[i].File, "the first copy's generation %d in %s", g.Seq, folder)
		require.Equal(t, g.C4, h.Generations[i].C4, "the first copy's generation %d in %s", g.Seq, folder)
	}
	for _, g := range h.Generations {
		require.Equal(t, ascmhl.ManifestName(g.Seq, filepath.Base(folder), g.Manifest.Created), g.File,
			"generation %d in %s is named with its own creation time", g.Seq, folder)
	}
	for _, g := range h.Generations[len(first):] {
		require.Equal(t, "dit", g.Manifest.Tool)
		require.Equal(t, ascmhl.ProcessTransfer, g.Manifest.Process)
	}
	v := e2e.Dit(t, db, "mhl", "verify", folder)
	require.Equal(t, 0, v.Code, "dit mhl verify %s:\n%s%s", folder, v.Stdout, v.Stderr)
	bin := e2e.ReferenceTool(t)
	res := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", folder)
	require.Equal(t, 0, res.Code, "ascmhl-debug verify %s:\n%s", folder, res.Out)
	return h.Generations
}

func loadGenerations(t *testing.T, folder string) []ascmhl.Generation {
	t.Helper()
	st, err := ascmhl.OpenOSStore(folder)
	require.NoError(t, err)
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	require.NoError(t, err, folder)
	require.Empty(t, h.Problems, folder)
	return h.Generations
}

// requireSafe checks that dit jobs --json calls every card of job 1 safe to
// format.
func requireSafe(t *testing.T, db, when string) {
	t.Helper()
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var jobs e2e.CrashJobs
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	require.Len(t, jobs, 1)
	require.Equal(t, "done", jobs[0].State, when)
	require.NotEmpty(t, jobs[0].Cards)
	for _, c := range jobs[0].Cards {
		require.True(t, c.Safe, "%s: %s is not safe to format (%s)", when, c.Label, c.State)
	}
}

// resumeWritesNothing resumes a finished cascade job: exit 0, every card
// still safe to format, and not a byte written on any destination (no new
// ASC MHL generation, the chains as they were).
func resumeWritesNothing(t *testing.T, db, when string, dests ...string) {
	t.Helper()
	before := destSnapshot(t, dests...)
	r := e2e.Dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 0, r.Code, "%s: resume:\n%s", when, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	for _, c := range sum.Cards {
		require.True(t, c.SafeToFormat, "%s: %s", when, c.Verdict)
	}
	require.Equal(t, before, destSnapshot(t, dests...), "%s: a resume of a finished job writes nothing", when)
	requireSafe(t, db, when)
}

// finishedCascade offloads card A001 (made in cards) to dir/raid, then to
// dir/shuttle, and checks the card is safe to format.
func finishedCascade(t *testing.T, dir, db, cards string) (raid, shuttle string) {
	t.Helper()
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	raid, shuttle = filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "day01", "--json", "-d", raid, "--then", shuttle, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Len(t, sum.Cards, 1)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	return raid, shuttle
}

// Issue 24 item 2: a finished cascade resumed (twice) writes nothing on
// the shuttle, fails nothing of its own ASC MHL history (the chain its
// seal extended is not someone else's file), and the card stays safe to
// format.
func TestCascadeResumeFinishedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	raid, shuttle := finishedCascade(t, dir, db, cards)
	first := loadGenerations(t, filepath.Join(raid, "day01", "A001"))
	require.Len(t, first, 1)
	folder := filepath.Join(shuttle, "day01", "A001")
	gens := shuttleHistory(t, db, folder, first, 1)

	for _, when := range []string{"first resume", "second resume"} {
		resumeWritesNothing(t, db, when, raid, shuttle)
		require.Equal(t, gens, shuttleHistory(t, db, folder, first, 1), when)
	}
}

// Issue 24 item 2: a cascade killed (kill -9) after the card was free,
// during or after its second run, resumes to the end: the second run
// completes once (exactly one second-run generation on the shuttle, after
// the first copy's), exit 0, safe to format; the card is not needed; and
// a second resume writes nothing.
func TestCascadeKilledAfterCardFreeResumesOnce(t *testing.T) {
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, filepath.Join(dir, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	for i, step := range []string{"cascade: second run recorded#1", "file: verified, run 2#5", "card: sealing recorded#2",
		"ascmhl: manifest written#2", "store: temp written ascmhl_chain.xml#2", "seal: destination sealed#2", "card: sealed#2",
		"job: finishing recorded#1"} {
		t.Run(strings.NewReplacer(" ", "_", ":", "", "#", "_").Replace(step), func(t *testing.T) {
			dir := filepath.Join(dir, "run"+e2e.Itoa(int64(i)))
			db := filepath.Join(dir, "catalog.db")
			raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
			for _, d := range []string{raid, shuttle} {
				require.NoError(t, os.MkdirAll(d, 0o755))
			}
			card := filepath.Join(dir, "A001")
			require.NoError(t, os.CopyFS(card, os.DirFS(filepath.Join(cards, "A001"))))
			_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=" + step}, "offload", "--name", "day01", "-d", raid, "--then", shuttle, card)
			require.True(t, killed, "dit reached %q", step)
			// The card is free: it has left the reader.
			require.NoError(t, os.Rename(card, card+"-away"))

			r := e2e.Dit(t, db, "offload", "--resume", "1", "--json")
			require.Equal(t, 0, r.Code, "%s: resume:\n%s", step, r.Stdout+r.Stderr)
			sum, _ := e2e.LastSummary(t, r.Stdout)
			require.Len(t, sum.Cards, 1)
			require.True(t, sum.Cards[0].SafeToFormat, "%s: %s", step, sum.Cards[0].Verdict)
			requireSafe(t, db, step+": after the resume")
			folder := filepath.Join(shuttle, "day01", "A001")
			require.Equal(t, e2e.Footage(e2e.Tree(t, card+"-away")), e2e.WithoutHistory(e2e.Tree(t, folder)))
			first := loadGenerations(t, filepath.Join(raid, "day01", "A001"))
			require.Len(t, first, 1)
			gens := shuttleHistory(t, db, folder, first, 1)
			require.Empty(t, e2e.DitTemps(t, folder))

			for _, when := range []string{"second resume", "third resume"} {
				resumeWritesNothing(t, db, step+": "+when, raid, shuttle)
				require.Equal(t, gens, shuttleHistory(t, db, folder, first, 1), when)
			}
		})
	}
}

// A chain on the shuttle that is not the first copy's extended only by this
// job's own seal (here a later generation by another process: dit mhl
// create) is not dit's own for this job: a resume fails it as a conflict
// naming the path, and never replaces it with the first copy's chain.
func TestCascadeResumeForeignChainIsAConflict(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	_, shuttle := finishedCascade(t, dir, db, filepath.Join(dir, "cards"))
	folder := filepath.Join(shuttle, "day01", "A001")
	r := e2e.Dit(t, db, "mhl", "create", folder)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	foreign := loadGenerations(t, folder)
	require.Len(t, foreign, 3)

	r = e2e.Dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	chain := filepath.Join(folder, "ascmhl", "ascmhl_chain.xml")
	require.Contains(t, r.Stdout, "a different file already exists at "+chain)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	// Not replaced: every generation it listed is still there, in order.
	after := loadGenerations(t, folder)
	require.GreaterOrEqual(t, len(after), len(foreign))
	for i, g := range foreign {
		require.Equal(t, g.File, after[i].File)
		require.Equal(t, g.C4, after[i].C4)
	}
}

// A job whose catalog recorded the shuttle's chain failed after its seal
// extended it (as a resume before the fix did: "a different file already
// exists") is finished by a resume: the chain, the first copy's extended
// only by this job's own generations, is not replaced and counts verified;
// the card is resealed once (one more generation) and is safe to format; a
// resume after that writes nothing.
func TestCascadeResumeRecoversChainRecordedFailed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	raid, shuttle := finishedCascade(t, dir, db, filepath.Join(dir, "cards"))
	folder := filepath.Join(shuttle, "day01", "A001")
	chainBytes, err := os.ReadFile(filepath.Join(folder, "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err)

	cat, err := catalog.OpenExisting(db)
	require.NoError(t, err)
	cards, err := cat.Cards(1)
	require.NoError(t, err)
	marked := false
	for _, k := range cards {
		if k.Hop != 2 {
			continue
		}
		files, err := cat.Files(k.ID)
		require.NoError(t, err)
		for _, f := range files {
			if f.Rel != "ascmhl/ascmhl_chain.xml" {
				continue
			}
			msg := "a different file already exists at " + filepath.Join(folder, "ascmhl", "ascmhl_chain.xml")
			f.State, f.Error = "failed", msg
			cat.PutFile(f)
			for _, cp := range f.Copies {
				cp.State, cp.Error, cp.VerifiedAt = "failed", msg, time.Time{}
				cat.PutCopy(k.ID, f.Rel, &cp)
			}
			marked = true
		}
		k.State, k.Error = "failed", "1 file(s) failed"
		cat.UpdateCard(k)
	}
	require.True(t, marked)
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.Close())
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Contains(t, r.Stdout, `"safe_to_format": false`)

	first := loadGenerations(t, filepath.Join(raid, "day01", "A001"))
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	requireSafe(t, db, "after the resume")
	gens := shuttleHistory(t, db, folder, first, 2)
	now, err := os.ReadFile(filepath.Join(folder, "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err)
	require.Greater(t, len(now), len(chainBytes), "the chain is extended, not replaced")
	resumeWritesNothing(t, db, "second resume", raid, shuttle)
	require.Equal(t, gens, shuttleHistory(t, db, folder, first, 2))
}

// A card that carries an ASC MHL history of its own (an earlier hop): the
// first run's seal extends its chain on the first copy, which the second
// run does not take for a first copy that differs from the card; the
// shuttle's history is the card's generation, the first run's, then the
// second run's; a resume writes nothing.
func TestCascadeCardWithHistory(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "3MB", "--seed", "4")
	require.Equal(t, 0, r.Code, r.Stderr)
	card := filepath.Join(cards, "A001")
	// Without the OS metadata the offload leaves out (an empty .Trashes
	// the history recorded would be missing from every copy).
	ents, err := os.ReadDir(card)
	require.NoError(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			require.NoError(t, os.RemoveAll(filepath.Join(card, e.Name())))
		}
	}
	r = e2e.Dit(t, db, "mhl", "create", card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	cardGens := loadGenerations(t, card)
	require.Len(t, cardGens, 1)
	raid, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "day01", "--json", "-d", raid, "--then", shuttle, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)

	first := shuttleHistory(t, db, filepath.Join(raid, "day01", "A001"), cardGens, 1)
	folder := filepath.Join(shuttle, "day01", "A001")
	gens := shuttleHistory(t, db, folder, first, 1)
	for _, when := range []string{"first resume", "second resume"} {
		resumeWritesNothing(t, db, when, raid, shuttle)
		require.Equal(t, gens, shuttleHistory(t, db, folder, first, 1), when)
	}
}
