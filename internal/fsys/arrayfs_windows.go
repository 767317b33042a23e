package fsys

import "fmt"

// arrayReadBackErr: a dit array's blades are read through the Windows
// file cache (the raid reader has no unbuffered path here), so a
// read-back verification of a file on an array fails, saying why, rather
// than pass on cached bytes. Verify arrays on Linux or macOS.
func arrayReadBackErr(name string) error {
	return fmt.Errorf("cannot verify %s on a dit array on Windows: its blades would be read through the file cache, not from their media (verify the array on Linux or macOS)", name)
}
