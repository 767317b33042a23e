package earlier

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// A resume trusts a verified copy only while it is the file read back:
// the identity recorded then and the copy's now agree; a copy whose
// identity changed (or was seen changing while read back: "~") is read
// again, and so is one with no identity recorded when the run that
// verified it died.
func TestVouch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "C001.mov")
	require.NoError(t, os.WriteFile(p, []byte("clip"), 0o644))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	id := fsys.Identity(fi)
	if id == "" {
		t.Skip("this filesystem gives no file identity")
	}
	copyWith := func(id string) *catalog.Copy { return &catalog.Copy{State: "verified", Identity: id} }

	require.Equal(t, Trusted, Vouch(copyWith(id), fi, true), "the same file, whatever the run's end")
	require.Equal(t, Changed, Vouch(copyWith("~"+id), fi, false), "seen changing while read back")

	// The same path written again: another file (its times at least).
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(p, later, later))
	fi2, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, Changed, Vouch(copyWith(id), fi2, false))

	require.Equal(t, Unvouched, Vouch(copyWith(""), fi, true), "no identity, and the run died")
	require.Equal(t, Trusted, Vouch(copyWith(""), fi, false), "no identity, the run ended as it should")
}
