package jobreport

// These tests run engine jobs with remote destinations without the
// composition layer: they register the engine's remote kind themselves.
import _ "github.com/dit-org/dit/internal/offload/dest/remote"
