//go:build !unix

package cloud

// processAlive cannot tell here: every process is taken as running, so
// nothing is swept.
func processAlive(int) bool { return true }
