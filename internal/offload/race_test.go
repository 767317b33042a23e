//go:build race

package offload

// raceOn: the race detector is on (its checks make allocations of their
// own, so a test's count of bytes allocated means nothing then).
const raceOn = true
