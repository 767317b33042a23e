//go:build !cgo

// Command dit-gui is dit's desktop app. This build has no cgo, which the
// GUI needs (OpenGL and the windowing system): it only says how to build
// the real one.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprint(os.Stderr, `dit-gui was built without cgo, and the desktop app needs it (OpenGL, X11).

Build it with:
  make gui-deps   # Debian/Ubuntu: gcc, pkg-config and the X11/GL headers (apt)
  make gui        # CGO_ENABLED=1 go build -o bin/dit-gui ./cmd/dit-gui

On macOS, install the Xcode command line tools (xcode-select --install) and run make gui.
The command-line tool, dit, needs none of this.
`)
	os.Exit(1)
}
