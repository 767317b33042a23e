package mountplace

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// /proc/self/mounts writes a space, a backslash (and tab, newline) in a
// mount point as octal escapes: the table reads them back.
func TestUnescapeMountPoint(t *testing.T) {
	require.Equal(t, "/mnt/my disk\\x", unescape(`/mnt/my\040disk\134x`))
	require.Equal(t, "/mnt/plain", unescape("/mnt/plain"))
}
