//go:build !linux

package cloud

import "os"

// parentDeath: no parent-death signal here, so no rclone is left running
// on its own (no daemon: each transfer is a process of its own).
const parentDeath = false

// pending: no daemon here, so no pipe to ask.
func pending(*os.File) int { return 0 }
