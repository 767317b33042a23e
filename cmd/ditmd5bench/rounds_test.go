package main

import (
	"testing"
	"time"
)

// A tool's wall time is its run's alone: what its prep does (freeing
// the round before's copies) is not counted, and every round preps
// first. The clock is the test's: prep takes 10 s of it, run 1 s.
func TestPrepIsNotTimed(t *testing.T) {
	var clock time.Time
	now := func() time.Time { return clock }
	var order []string
	tl := tool{name: "dit",
		prep: func() error { order = append(order, "prep"); clock = clock.Add(10 * time.Second); return nil },
		run: func() (time.Duration, error) {
			order = append(order, "run")
			clock = clock.Add(time.Second)
			return 2 * time.Second, nil
		}}
	got := measureBy(now, 2, []tool{tl})
	if w := got.wall["dit"]; len(w) != 2 || w[0] != 1 || w[1] != 1 {
		t.Fatalf("wall = %v, want [1 1] (the run's second, not the prep's ten)", w)
	}
	if c := got.cpu["dit"]; len(c) != 2 || c[0] != 2 {
		t.Fatalf("cpu = %v, want the run's 2 s each round", c)
	}
	if want := []string{"prep", "run", "prep", "run", "prep", "run"}; len(order) != len(want) {
		t.Fatalf("order = %v, want %v (a warm-up round, then 2)", order, want)
	} else {
		for i := range want {
			if order[i] != want[i] {
				t.Fatalf("order = %v, want %v", order, want)
			}
		}
	}
}
