package seal

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/mhlv1"
	"github.com/dit-org/dit/internal/offload"
)

// The MHL v1.1 list never takes the name of a list that is there and is
// not this seal's: a cascade's second run copies the first copy's list,
// made in the same second, into the same folder. A redo of this seal
// finds its own list again.
func TestV1ListNameAvoidsACopiedList(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 3, 8, 25, 58, 0, time.UTC)
	base := mhlv1.FileName("A001", at)
	info := offload.SealInfo{Host: "cart", ToolVersion: "1.2.3", Files: offload.SealFileList([]offload.SealFile{{Rel: base}})}
	st, err := ascmhl.OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()

	require.Equal(t, base, v1Free(st, base, info), "a free name is kept")
	mine := "<tool>dit 1.2.3</tool><hostname>cart</hostname>"
	require.NoError(t, os.WriteFile(filepath.Join(dir, base), []byte(mine), 0o644))
	second := "A001_2026-12-03_082558_2.mhl"
	require.Equal(t, second, v1Free(st, base, info), "a list copied with the card is never rewritten")
	require.NoError(t, os.WriteFile(filepath.Join(dir, second), []byte("<tool>another tool</tool>"), 0o644))
	require.Equal(t, "A001_2026-12-03_082558_3.mhl", v1Free(st, base, info), "nor another tool's")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "A001_2026-12-03_082558_3.mhl"), []byte(mine), 0o644))
	require.Equal(t, "A001_2026-12-03_082558_3.mhl", v1Free(st, base, info), "this seal's own list, redone")
}
