//go:build !unix

// Command ditbench is the whole-process benchmark behind `make bench`
// (Linux and macOS: it measures with getrusage and statfs).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "ditbench: runs on Linux and macOS only (it measures with getrusage and statfs)")
	os.Exit(1)
}
