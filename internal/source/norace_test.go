//go:build !race

package source

const raceOn = false
