//go:build race

package summary

// raceOn: the race detector is on (it allocates on its own, so a test's
// figure of the live heap means nothing then).
const raceOn = true
