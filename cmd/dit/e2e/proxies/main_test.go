package proxies

import (
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestMain builds the dit binary these tests run (e2e.Bin), once for
// all the end-to-end packages; under -short it runs none of them.
func TestMain(m *testing.M) { e2e.Main(m) }
