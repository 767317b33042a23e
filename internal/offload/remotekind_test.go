package offload

// The pipeline's tests run jobs with remote destinations: they register
// the remote kind, as the composition layer (internal/assembly) does for
// the programs. The pipeline itself never imports it (arch_test.go).
import _ "github.com/dit-org/dit/internal/offload/dest/remote"
