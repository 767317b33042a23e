//go:build !linux

package tether

import (
	"os/exec"
	"syscall"
)

// Start is cmd.Start: there is no parent-death signal here.
func Start(cmd *exec.Cmd, sig syscall.Signal) error { return cmd.Start() }

// Supported says whether a tethered child dies with dit here (Linux).
const Supported = false
