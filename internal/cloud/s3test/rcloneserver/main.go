// Command rcloneserver is rclone (the pinned release of go.mod) with only
// what dit's tests need of it as their S3 server: rclone serve s3 over the
// local backend. s3test builds it once into the repository's .cache (a
// module of its own, so that dit's go.mod holds none of rclone's
// dependencies); it is never part of dit.
package main

import (
	_ "github.com/rclone/rclone/backend/local"
	"github.com/rclone/rclone/cmd"
	_ "github.com/rclone/rclone/cmd/serve/s3"
)

func main() { cmd.Main() }
