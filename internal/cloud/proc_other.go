//go:build !linux

package cloud

// parentDeath: no parent-death signal here, so no rclone is left running
// on its own (no daemon: each transfer is a process of its own).
const parentDeath = false
