package offload

// The pipeline's tests run jobs with remote destinations: they register
// the remote kind, as the composition layer (internal/assembly) does for
// the programs. The pipeline itself never imports it (arch_test.go).
import (
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// rcloneOf is the rclone o's remote settings run.
func rcloneOf(o Options) *cloud.Rclone {
	r, err := remote.Rclone(o.Remote)
	if err != nil {
		panic(err)
	}
	return r
}
