// Package crashpoint lets the crash tests stop dit dead at a named step of
// its work, as kill -9 or a power cut would, to prove that every step
// leaves a job that resumes to a correct end.
//
// It does nothing unless an environment variable asks for it:
//
//	DIT_CRASH_AT=NAME     the process kills itself (SIGKILL) the first time it
//	                      reaches the step NAME; NAME#N: the N-th time
//	DIT_CRASH_LIST=FILE   every step reached is appended to FILE, one per
//	                      line (how a test learns the steps to crash at)
//
// Steps are named "<area>: <what has just become durable>", e.g.
// "ascmhl: manifest written".
package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	count = map[string]int{}
	at    = os.Getenv("DIT_CRASH_AT")
	list  = os.Getenv("DIT_CRASH_LIST")
)

// On reports whether a crash test runs (a step that costs something to
// reach, e.g. a catalog flush, is only taken then).
func On() bool { return at != "" || list != "" }

// Hit marks the step name. It returns at once when no crash test runs.
func Hit(name string) {
	if at == "" && list == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	count[name]++
	if list != "" {
		if f, err := os.OpenFile(list, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "%s#%d\n", name, count[name])
			f.Close()
		}
	}
	want, nth := at, 1
	if i := strings.LastIndexByte(at, '#'); i >= 0 {
		if n, err := strconv.Atoi(at[i+1:]); err == nil {
			want, nth = at[:i], n
		}
	}
	if want == name && count[name] == nth {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill() // SIGKILL on Unix: nothing runs after it
		}
		select {} // the signal is on its way
	}
}
