package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

func TestFindPrior(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "cards"), "A023", map[string]string{"CLIPS/C001.mov": bigContent(5000, 1), "x.xml": "<x/>"})
	b := testCard(t, filepath.Join(e.dir, "cards"), "B001", map[string]string{"C.mov": "other"})
	d := e.dest("raid")
	ctx := context.Background()

	priors, hist, err := FindPrior(ctx, e.cat, nil, []string{a, b}, false, nil)
	require.NoError(t, err)
	require.Equal(t, []*Prior{nil, nil}, priors, "nothing offloaded yet")
	require.Empty(t, hist)

	o := e.opts([]string{a}, []string{d})
	o.MHL = "none" // no Seal here: no hash lists to find with the copies
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)

	priors, _, err = FindPrior(ctx, e.cat, nil, []string{a, b, filepath.Join(e.dir, "missing")}, false, nil)
	require.NoError(t, err)
	require.NotNil(t, priors[0])
	require.Nil(t, priors[1])
	require.Nil(t, priors[2])
	p := priors[0]
	require.Equal(t, s.JobID, p.JobID)
	require.Equal(t, "A023", p.Label)
	require.Equal(t, []string{filepath.Join(d, "day01", "A023")}, p.Dests)
	require.Regexp(t, `^A023 was offloaded in job \d+ on \d{4}-\d\d-\d\d, verified \(to .*A023\)$`, p.Message())

	// A changed modification time is another card.
	later := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(a, "x.xml"), later, later))
	priors, _, err = FindPrior(ctx, e.cat, nil, []string{a}, false, nil)
	require.NoError(t, err)
	require.Nil(t, priors[0])
	mt := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(a, "x.xml"), mt, mt))

	// A card whose own ASC MHL history disagrees with the catalog is not
	// taken for the earlier one (its history folder adds files, so compare
	// with a job that copied it with that history).
	st, err := ascmhl.OpenOSStore(a)
	require.NoError(t, err)
	v := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("<x/>")).Get(hashing.XXH64)
	m := &ascmhl.Manifest{Created: mt, Host: "h", Tool: "t", Process: ascmhl.ProcessInPlace,
		Files: []ascmhl.File{{Path: "x.xml", Size: 4, Hashes: []ascmhl.Hash{{Algo: hashing.XXH64, Value: v, Action: ascmhl.Original}}}}}
	_, err = ascmhl.Append(st, nil, m, "A023")
	require.NoError(t, err)
	st.Close()
	o = e.opts([]string{a}, []string{d})
	o.Name, o.MHL = "day02", "none"
	_, err = e.run(o)
	require.NoError(t, err)
	priors, hist, err = FindPrior(ctx, e.cat, nil, []string{a}, false, nil)
	require.NoError(t, err)
	require.NotNil(t, priors[0])
	require.Len(t, hist, 1)
	require.Equal(t, 1, hist[0].Generations)
	require.Contains(t, hist[0].Last, "t  on h")
	// Now make the history say x.xml had other content, keeping the names,
	// sizes and times of its files.
	times := map[string]time.Time{}
	ents, err := os.ReadDir(filepath.Join(a, "ascmhl"))
	require.NoError(t, err)
	for _, en := range ents {
		fi, _ := en.Info()
		times[en.Name()] = fi.ModTime()
	}
	require.NoError(t, os.RemoveAll(filepath.Join(a, "ascmhl")))
	st, _ = ascmhl.OpenOSStore(a)
	m.Files[0].Hashes[0].Value = "0000000000000000"
	_, err = ascmhl.Append(st, nil, m, "A023")
	require.NoError(t, err)
	st.Close()
	for name, t0 := range times {
		require.NoError(t, os.Chtimes(filepath.Join(a, "ascmhl", name), t0, t0))
	}
	priors, _, err = FindPrior(ctx, e.cat, nil, []string{a}, false, nil)
	require.NoError(t, err)
	require.Nil(t, priors[0], "the card's history says x.xml had other content")
}
