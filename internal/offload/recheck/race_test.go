//go:build race

package recheck

// raceOn: the race detector is on (its shadow memory is no measure of
// the heap).
const raceOn = true
