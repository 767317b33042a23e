//go:build race

package source

// raceOn: the race detector is on (its checks make allocations of their own).
const raceOn = true
