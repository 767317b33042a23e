//go:build !linux

package cloud

import (
	"os"
	"os/exec"
)

// parentDeath: no parent-death signal here, so no rclone is left running
// on its own (no daemon: each transfer is a process of its own).
const parentDeath = false

func dieWithParent(*exec.Cmd) {}

// pending: no daemon here, so no pipe to ask.
func pending(*os.File) int { return 0 }
