//go:build !unix

package proxies

import "os/exec"

// Start starts cmd (no priority is lowered on this system).
func Start(cmd *exec.Cmd) error { return cmd.Start() }
