package assembly

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --proxies-to: a destination of the job (-d or --then), by default the
// first -d; anything else is refused, naming it and the destinations to
// choose from.
func TestProxyDests(t *testing.T) {
	dir := t.TempDir()
	raid, shuttle, other := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle"), filepath.Join(dir, "other")
	for _, d := range []string{raid, shuttle, other} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	to, err := proxyDests(nil, []string{raid, shuttle})
	require.NoError(t, err)
	require.Equal(t, []string{raid}, to)
	to, err = proxyDests([]string{shuttle, shuttle + "/", raid}, []string{raid, shuttle})
	require.NoError(t, err)
	require.Equal(t, []string{shuttle, raid}, to)
	_, err = proxyDests([]string{other}, []string{raid, shuttle})
	require.ErrorContains(t, err, "--proxies-to "+other+" is not a destination")
	require.ErrorContains(t, err, raid+", "+shuttle)
	_, err = proxyDests(nil, nil)
	require.ErrorContains(t, err, "no destination")
}
