package usage

import (
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestMain builds the dit binary these tests run (e2e.Bin).
func TestMain(m *testing.M) { e2e.Main(m) }
