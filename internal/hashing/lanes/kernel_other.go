//go:build !amd64 || !gc || noasm

package lanes

import "runtime"

func detect() (kind string, width int, why string) {
	return "", 0, runtime.GOARCH
}

func eightTwice() bool { return false }

func kernel(states [][4]uint32, ps [][]byte, n int, width int) {
	panic("lanes: no vector kernel on " + runtime.GOARCH)
}

func addr(p []byte) uintptr                           { return 0 }
func kernel16(states [][4]uint32, ps [][]byte, n int) { kernel(states, ps, n, 16) }
