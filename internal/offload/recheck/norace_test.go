//go:build !race

package recheck

const raceOn = false
