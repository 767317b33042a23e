package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// .ci/run installs the OpenTimelineIO venvs the tests use before make
// test, with the same packages and markers: were they to differ, every
// e2e package would install them again from PyPI during the tests (or
// skip without PyPI).
func TestCIInstallsTheOTIOVenvsTheTestsUse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", ".ci", "run"))
	require.NoError(t, err)
	ci := string(b)
	for _, v := range []struct {
		marker string
		pkgs   []string
	}{{otioMarker, otioPackages}, {otioEditorialMarker, otioEditorialPackages}} {
		require.Contains(t, ci, v.marker+" "+strings.Join(v.pkgs, " "), ".ci/run installs %s", v.marker)
	}
}
