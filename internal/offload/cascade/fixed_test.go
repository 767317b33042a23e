package cascade

import (
	"slices"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/summary"
)

// Fixed are expectations given whole (tests): path -> the card's hashes.
func Fixed(m map[string]hashing.Sums) *Expect {
	rows := make([]expectRow, 0, len(m))
	for rel, s := range m {
		rows = append(rows, expectRow{rel: rel, state: summary.StateVerified, sums: s})
	}
	slices.SortFunc(rows, func(a, b expectRow) int { return strings.Compare(a.rel, b.rel) })
	return &Expect{src: fixedRecords(rows)}
}

// fixedRecords are records given whole, sorted by path (Fixed).
type fixedRecords []expectRow

func (f fixedRecords) page(from string, n int) ([]expectRow, error) {
	i := sort.Search(len(f), func(i int) bool { return f[i].rel >= from })
	return f[i:min(i+n, len(f))], nil
}

func (f fixedRecords) all(fn func(expectRow) error) error {
	for _, r := range f {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
