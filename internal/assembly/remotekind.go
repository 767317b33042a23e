package assembly

// The composition layer builds the engine's jobs, so it registers the
// engine's remote kind of destination (rclone:REMOTE:PATH): the
// pipeline (internal/offload) knows destinations through
// internal/offload/dest and never imports the kind itself.
import _ "github.com/dit-org/dit/internal/offload/dest/remote"
