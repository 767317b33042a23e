//go:build !race

package seal

const raceOn = false
