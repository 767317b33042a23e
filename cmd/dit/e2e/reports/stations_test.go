package reports

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
)

// footageFiles lists a card's files that dit copies (OS junk left out),
// slash-separated, with their sizes.
func footageFiles(t *testing.T, card string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for rel := range e2e.Footage(e2e.Tree(t, card)) {
		fi, err := os.Stat(filepath.Join(card, filepath.FromSlash(rel)))
		require.NoError(t, err)
		out[rel] = fi.Size()
	}
	return out
}

// Two carts (stations) offload at the same time into one PostgreSQL
// catalog: both jobs complete, every file of each card is recorded once,
// with its copy, under the right station; dit jobs, find and day read it.
func TestTwoStationsOnePostgresCatalog(t *testing.T) {
	pg := pgtest.ForTest(t)
	db, err := pg.NewDatabase("production")
	require.NoError(t, err)
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "30MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)

	type cart struct {
		station, card, dest string
		cmd                 *exec.Cmd
		out                 strings.Builder
	}
	carts := []*cart{
		{station: "main-unit", card: filepath.Join(cards, "A001"), dest: filepath.Join(dir, "raid-main")},
		{station: "second-unit", card: filepath.Join(cards, "A002"), dest: filepath.Join(dir, "raid-second")},
	}
	for _, c := range carts {
		require.NoError(t, os.Mkdir(c.dest, 0o755))
		// Throttled so that the two jobs overlap: both write the catalog
		// at once.
		c.cmd = exec.Command(e2e.Bin, "offload", "--station", c.station, "--name", "day12", "--throttle", "10MB/s", "-d", c.dest, c.card)
		c.cmd.Env = append(os.Environ(), "DIT_DB="+db)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		require.NoError(t, c.cmd.Start())
	}
	for _, c := range carts {
		require.NoError(t, c.cmd.Wait(), "%s: %s", c.station, c.out.String())
	}

	cat, err := catalog.OpenExisting(db)
	require.NoError(t, err)
	defer cat.Close()
	jobs, err := cat.Jobs()
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	byStation := map[string]*catalog.Job{}
	for _, j := range jobs {
		byStation[j.Station] = j
		require.Equal(t, catalog.JobDone, j.State, "job %d of %s", j.ID, j.Station)
	}
	a, b := byStation["main-unit"], byStation["second-unit"]
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.True(t, a.Started.Before(b.Finished) && b.Started.Before(a.Finished), "the two jobs ran at the same time")
	var shot int64
	for _, c := range carts {
		j := byStation[c.station]
		ks, err := cat.Cards(j.ID)
		require.NoError(t, err)
		require.Len(t, ks, 1)
		require.Equal(t, "verified", ks[0].State)
		files, err := cat.Files(ks[0].ID)
		require.NoError(t, err)
		want := footageFiles(t, c.card)
		got := map[string]int64{}
		for _, f := range files {
			_, dup := got[f.Rel]
			require.False(t, dup, "%s recorded twice", f.Rel)
			got[f.Rel] = f.Size
			require.Len(t, f.Copies, 1, f.Rel)
			require.Equal(t, "verified", f.Copies[0].State, f.Rel)
		}
		require.Equal(t, want, got, "every file of %s recorded once, for %s", c.card, c.station)
		for _, n := range want {
			shot += n
		}
	}
	var rows int
	require.NoError(t, cat.DB().QueryRow(`SELECT count(*) FROM files`).Scan(&rows))
	require.Equal(t, len(footageFiles(t, carts[0].card))+len(footageFiles(t, carts[1].card)), rows, "no stray file rows")

	// dit jobs: this station's jobs; --all-stations: every one.
	var list []map[string]any
	r = e2e.Dit(t, db, "jobs", "--json", "--station", "main-unit")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	require.Len(t, list, 1)
	require.Equal(t, "main-unit", list[0]["station"])
	r = e2e.Dit(t, db, "jobs", "--station", "main-unit")
	require.Contains(t, r.Stdout, "(and 1 job of other stations than main-unit: dit jobs --all-stations)")
	r = e2e.Dit(t, db, "jobs", "--json", "--all-stations")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	require.Len(t, list, 2)
	r = e2e.Dit(t, db, "jobs", "--all-stations")
	require.Contains(t, r.Stdout, "STATION")
	require.Contains(t, r.Stdout, "second-unit")

	// dit find: a clip of A002 by its name, every copy with its station.
	var clip string
	for rel := range footageFiles(t, carts[1].card) {
		if strings.HasSuffix(rel, ".mov") {
			clip = strings.SplitN(filepath.Base(rel), "_", 2)[0] // A002C001
			break
		}
	}
	require.NotEmpty(t, clip)
	r = e2e.Dit(t, db, "find", "--json", strings.ToLower(clip))
	require.Equal(t, 0, r.Code, r.Stderr)
	var found []catalog.Found
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &found))
	require.NotEmpty(t, found)
	for _, f := range found {
		require.Equal(t, "second-unit", f.Station)
		require.Equal(t, b.ID, f.JobID)
		require.Contains(t, f.Rel, clip)
		require.False(t, f.VerifiedAt.IsZero(), "verified when")
		fi, err := os.Stat(f.Path)
		require.NoError(t, err, "find gives the copy's real path")
		require.Equal(t, f.Size, fi.Size())
	}
	// A whole destination path finds that one copy.
	r = e2e.Dit(t, db, "find", "--json", found[0].Path)
	require.Equal(t, 0, r.Code, r.Stderr)
	var one []catalog.Found
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &one))
	require.Len(t, one, 1)
	r = e2e.Dit(t, db, "find", "NO_SUCH_CLIP_Z9")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, `no copy of "NO_SUCH_CLIP_Z9"`)

	// dit day: the footage shot is the cards' bytes, per station.
	r = e2e.Dit(t, db, "day", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var day dayReport
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &day))
	require.Equal(t, shot, day.Bytes, "TB shot = the bytes of the cards' footage")
	require.InDelta(t, float64(shot)/1e12, day.TB, 1e-15)
	require.Len(t, day.Stations, 2)
	for _, s := range day.Stations {
		card := map[string]string{"main-unit": carts[0].card, "second-unit": carts[1].card}[s.Station]
		require.NotEmpty(t, card, s.Station)
		var n int64
		for _, v := range footageFiles(t, card) {
			n += v
		}
		require.Equal(t, n, s.Bytes, s.Station)
		require.Equal(t, 1, s.Safe)
	}
	require.Len(t, day.SafeToFormat, 2)
	require.Empty(t, day.NotYet)
	labels := []string{day.SafeToFormat[0].Label, day.SafeToFormat[1].Label}
	sort.Strings(labels)
	require.Equal(t, []string{"A001", "A002"}, labels)
	r = e2e.Dit(t, db, "day", "2001-01-01", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &day))
	require.Zero(t, day.Bytes)
	require.Empty(t, day.SafeToFormat)
	r = e2e.Dit(t, db, "day", "12/05/2026")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "give YYYY-MM-DD")
}

// A card offloaded twice in a day (to d1, then to d1 and d2: the second
// job copies it to d2 only) is one card of footage: dit day counts its
// bytes once and lists it once, safe to format since the first job.
func TestDayCountsACardOffloadedTwiceOnce(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "5MB", "--seed", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	a := filepath.Join(cards, "A001")
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "first", "-d", d1, a)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "offload", "--name", "second", "-d", d1, "-d", d2, a)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var n int64
	for _, v := range footageFiles(t, a) {
		n += v
	}
	r = e2e.Dit(t, db, "day")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, strings.SplitN(r.Stdout, "\n", 2)[0], " on 1 station", "one station, said so")
	r = e2e.Dit(t, db, "day", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var day dayReport
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &day))
	require.Equal(t, n, day.Bytes, "the card's bytes once")
	require.Len(t, day.Stations, 1)
	require.Equal(t, 2, day.Stations[0].Jobs)
	require.Equal(t, 1, day.Stations[0].Cards)
	require.Equal(t, n, day.Stations[0].Bytes)
	require.Equal(t, 1, day.Stations[0].Safe)
	require.Len(t, day.SafeToFormat, 1)
	require.Equal(t, "first", day.SafeToFormat[0].Job, "safe since the first job")
	require.Empty(t, day.NotYet)
}

// dayReport is the part of dit day --json these tests read.
type dayReport struct {
	Bytes    int64   `json:"bytes"`
	TB       float64 `json:"tb"`
	Stations []struct {
		Station string `json:"station"`
		Jobs    int    `json:"jobs"`
		Cards   int    `json:"cards"`
		Bytes   int64  `json:"bytes"`
		Safe    int    `json:"safe_to_format"`
	} `json:"stations"`
	SafeToFormat []struct {
		Job   string `json:"job"`
		Label string `json:"label"`
	} `json:"safe_to_format"`
	NotYet []struct {
		Label string `json:"label"`
	} `json:"not_yet"`
}
