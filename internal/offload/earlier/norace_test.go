//go:build !race

package earlier

const raceOn = false
