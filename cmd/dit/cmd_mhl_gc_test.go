package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// dit mhl verify lowers the collector's target while it runs (its
// index is large and holds no pointer), and puts it back after; GOGC
// set by the user wins.
func TestVerifyGCTarget(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := verifyGC()
	require.Equal(t, verifyGCPercent, debug.SetGCPercent(verifyGCPercent))
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100))

	t.Setenv("GOGC", "200")
	restore = verifyGC()
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left as it is")
	restore()
}
