//go:build !unix

package main

import (
	"fmt"
	"os"
)

// The bench sets process priorities (nice, ioprio) the way dit's proxy
// maker does: only on Unix.
func main() {
	fmt.Fprintln(os.Stderr, "ditproxybench: runs on Linux and macOS only")
	os.Exit(2)
}
