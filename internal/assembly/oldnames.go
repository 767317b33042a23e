package assembly

import (
	"context"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
)

// The names below are the old "Cloud" spellings of what is now called a
// remote destination. They stay until their last users are renamed (not
// marked Deprecated: staticcheck, in make lint, would fail those users):
// ui/ (IsCloudDest, CheckCloudDest, CloudRoutes, CloudFree) and this
// package's cloud_test.go (CheckCloudDest, CheckCloudDests, CloudRoutes,
// CloudFree).

// Old name of IsRemoteDest (to go: see above).
func IsCloudDest(d string) bool { return IsRemoteDest(d) }

// Old name of CheckRemoteDest (to go: see above).
func CheckCloudDest(ctx context.Context, r *cloud.Rclone, d string) error {
	return CheckRemoteDest(ctx, r, d)
}

// Old name of CheckRemoteDests (to go: see above).
func CheckCloudDests(dests, then []string, verify offload.VerifyMode) error {
	return CheckRemoteDests(dests, then, verify)
}

// Old name of RemoteRoutes (to go: see above).
func CloudRoutes(dests, then []string) []string { return RemoteRoutes(dests, then) }

// Old name of RemoteFree (to go: see above).
func CloudFree(ctx context.Context, r *cloud.Rclone, d string) (int64, error) {
	return RemoteFree(ctx, r, d)
}
