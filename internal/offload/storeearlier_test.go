package offload

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
)

// An earlier history in a cloud folder is kept as the card's only when it
// records every verified file with the card's hashes: a file it lacks,
// records with another hash or size, in no format the job has, or last as
// failed is named; the card's own history files and copies not verified
// are not asked for.
func TestEarlierHistoryRecordsEveryFile(t *testing.T) {
	sums := func(md5, xxh string) hashing.Sums {
		var s hashing.Sums
		s.Set(hashing.MD5, md5)
		s.Set(hashing.XXH64, xxh)
		return s
	}
	aa, bb := "00000000000000aa", "00000000000000bb"
	upper, lower := "ABCD0000000000000000000000000000", "abcd0000000000000000000000000000"
	rec := func(rel string, size int64, vals map[hashing.Algo]string) *ascmhl.Record {
		return &ascmhl.Record{Path: rel, Size: size, Values: vals}
	}
	recs, err := ascmhl.RecordsOf(
		rec("ok.mov", 3, map[hashing.Algo]string{hashing.XXH64: aa}),
		rec("upper.mov", 3, map[hashing.Algo]string{hashing.MD5: upper}),
		rec("differs.mov", 3, map[hashing.Algo]string{hashing.XXH64: bb}),
		rec("resized.mov", 4, map[hashing.Algo]string{hashing.XXH64: aa}),
		rec("sha1.mov", 3, map[hashing.Algo]string{hashing.SHA1: "cc000000000000000000000000000000000000cc"}),
		&ascmhl.Record{Path: "failed.mov", Size: 3, Values: map[hashing.Algo]string{hashing.XXH64: aa}, LastFailed: true},
	)
	require.NoError(t, err)
	files := []SealFile{
		{Rel: "ok.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "upper.mov", Size: 3, Sums: sums(lower, ""), State: StateVerified},
		{Rel: "differs.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "resized.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "sha1.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "failed.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "gone.mov", Size: 3, Sums: sums("", aa), State: StateVerified},
		{Rel: "notcopied.mov", Size: 3, Sums: sums("", aa), State: StateFailed},
		{Rel: "ascmhl/ascmhl_chain.xml", Size: 3, Sums: sums("", aa), State: StateVerified},
	}
	require.Equal(t, []string{"differs.mov", "resized.mov", "sha1.mov", "failed.mov", "gone.mov"}, notRecorded(recs, files))
	require.Empty(t, notRecorded(recs, files[:2]))
}
