package offload

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A card may hold names of up to 255 bytes; the copy's temp name (which
// adds a dot, random digits and TempSuffix) must fit too, or the card
// could never be made safe. Each is copied, read back and verified, the
// bytes identical.
func TestLongNamesAreCopied(t *testing.T) {
	e := newEnv(t)
	names := []string{
		strings.Repeat("a", MaxNameBytes-4) + ".mov",  // 255 bytes
		strings.Repeat("b", 232) + ".mov",             // 236: the temp's first too long
		strings.Repeat("影", 83) + ".mov",              // 253 bytes, whole characters
		"CLIPS/" + strings.Repeat("é", 125) + "x.mxf", // 255 bytes, two-byte characters
		strings.Repeat("c", 230) + ".mov",             // 234: the temp fits as it is
	}
	files := map[string]string{}
	for i, n := range names {
		files[n] = bigContent(200_000+i, byte(i))
	}
	card := testCard(t, e.dir, "A001", files)
	d := e.dest("raid")
	sum, err := e.run(e.opts([]string{card}, []string{d}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, sum.ExitCode, "%+v", sum.Cards[0].Failures)
	require.True(t, sum.Cards[0].SafeToFormat)
	require.Equal(t, treeHashes(t, card), treeHashes(t, filepath.Join(d, "day01", "A001")))
}

// The temp pattern of any name fits a file name with os.CreateTemp's
// longest digits, and is recognised as dit's temp (removed after a kill).
func TestTempNamesFit(t *testing.T) {
	for _, n := range []string{"a.mov", strings.Repeat("x", 235), strings.Repeat("y", 236), strings.Repeat("z", 255),
		strings.Repeat("影", 85), strings.Repeat("é", 127) + "x"} {
		name := strings.Replace(tempPattern(n), "*", "4294967295", 1)
		require.LessOrEqual(t, len(name), MaxNameBytes, n)
		require.True(t, isTempName(name), name)
		require.True(t, strings.HasPrefix(name, "."+n[:min(len(n), 60)]) || len(n) > 235, name)
	}
	require.NotEqual(t, tempPattern(strings.Repeat("z", 254)+"1"), tempPattern(strings.Repeat("z", 254)+"2"),
		"two long names that share their head have their own temps")
}
