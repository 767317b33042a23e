package tether

import (
	"os/exec"
	"syscall"
)

// Run is cmd.Run for a tethered child (Start with sig, then Wait).
func Run(cmd *exec.Cmd, sig syscall.Signal) error {
	if err := Start(cmd, sig); err != nil {
		return err
	}
	return cmd.Wait()
}
