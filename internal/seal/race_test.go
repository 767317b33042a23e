//go:build race

package seal

// raceOn: the race detector is on (its checks make allocations of their own).
const raceOn = true
