//go:build !linux && !darwin

package ui

// freeSpace is unknown here: the engine still checks space before a job.
func freeSpace(string) (int64, error) { return -1, nil }
