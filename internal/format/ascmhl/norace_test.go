//go:build !race

package ascmhl

const raceOn = false
