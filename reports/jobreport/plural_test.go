package jobreport

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The verdict line says one card as one card ("the card", never "1 of 1
// cards"), and counts cards otherwise.
func TestVerdictWordsOneCard(t *testing.T) {
	for _, c := range []struct {
		t    Totals
		want string
	}{
		{Totals{Cards: 1, SafeToFormat: 1, Verified: true}, "VERIFIED: the card is safe to format"},
		{Totals{Cards: 1}, "NOT VERIFIED: the card is NOT safe to format"},
		{Totals{Cards: 2, SafeToFormat: 2, Verified: true}, "VERIFIED: all 2 cards safe to format"},
		{Totals{Cards: 3, SafeToFormat: 2}, "NOT VERIFIED: 1 of 3 cards NOT safe to format"},
	} {
		require.Equal(t, c.want, jobVerdict(c.t), "%+v", c.t)
	}
	require.Equal(t, "1 file", plural(1, "file", "files"))
	require.Equal(t, "1,234 files", plural(1234, "file", "files"))
}
