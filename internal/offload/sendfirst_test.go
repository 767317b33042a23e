package offload

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/source"
)

// A streamed resume sends first: the files some destination has no
// object of go before those every destination holds (read and checked,
// nothing sent), each group in the card's order; a file verified before
// on a destination counts as held there.
func TestStreamedResumeSendsFirst(t *testing.T) {
	mk := func(rel string, done ...bool) *storeFile {
		return &storeFile{fp: &filePlan{ent: source.Entry{Rel: rel}}, done: done}
	}
	files := []*storeFile{
		mk("A/C001.mov", false, false), // on both: check only
		mk("A/C002.mov", false, false), // on one: sent to the other
		mk("A/C003.mov", false, true),  // on the first, verified before on the second
		mk("A/C004.mov", false, false), // on neither
		mk("A/C005.mov", false, false), // on both
	}
	before := []map[string]dest.Object{
		{"A/C001.mov": {}, "A/C002.mov": {}, "A/C003.mov": {}, "A/C005.mov": {}},
		{"A/C001.mov": {}, "A/C005.mov": {}},
	}
	var got []string
	for _, f := range sendFirst(files, before) {
		got = append(got, f.fp.ent.Rel)
	}
	require.Equal(t, []string{"A/C002.mov", "A/C004.mov", "A/C001.mov", "A/C003.mov", "A/C005.mov"}, got)
	require.Len(t, files, 5, "the card's own list is left in its order")
	require.Equal(t, "A/C001.mov", files[0].fp.ent.Rel)
}
