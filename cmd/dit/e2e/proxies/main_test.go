package proxies

import (
	"os"
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// TestMain builds the dit binary these tests run (e2e.Bin), once for
// all the end-to-end packages; under -short it runs none of them. The
// clips its tests made once are removed after them.
func TestMain(m *testing.M) {
	code := e2e.Run(m)
	if clips.dir != "" {
		os.RemoveAll(clips.dir)
	}
	os.Exit(code)
}
