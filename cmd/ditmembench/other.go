//go:build !unix

// Command ditmembench measures dit's peak memory against a card's file
// count; it runs on Unix (it reads its children's rusage).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "ditmembench runs on Linux and macOS only")
	os.Exit(1)
}
