//go:build !unix

// Command ditcatbench measures dit's commands on a generated catalog of a
// million files; it runs on Unix (it reads its children's rusage).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "ditcatbench runs on Linux and macOS only")
	os.Exit(1)
}
