//go:build !linux

package main

import (
	"errors"
	"time"
)

// The bare work (bare.go) maps and preallocates files the Linux way; here
// it is not timed.
func bareTool(mode, dest string, cards []string) tool {
	return tool{name: "bare work (" + mode + ")", run: func() (time.Duration, error) {
		return 0, errors.New("the bare work is timed on Linux only: run with -with-bare=false")
	}}
}

func bare(mode, dest string, cards []string) {
	must(errors.New("the bare work is timed on Linux only"))
}
