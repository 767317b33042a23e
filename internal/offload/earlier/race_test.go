//go:build race

package earlier

// raceOn: the race detector is on (it allocates on its own, so a test's
// figure of the heap means nothing then, and it slows a test of one
// goroutine several times over for nothing to check).
const raceOn = true
