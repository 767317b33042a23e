package seal

import (
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestMain builds the dit binary these tests run (e2e.Bin), once for
// all the end-to-end packages; under -short it runs none of them. The
// kill points run four at a time (unless -parallel says otherwise): each
// waits on the disk more than it uses a core.
func TestMain(m *testing.M) {
	e2e.DefaultParallel(4)
	e2e.Main(m)
}
