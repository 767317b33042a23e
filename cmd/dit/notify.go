package main

import (
	"fmt"

	"github.com/dit-org/dit/internal/notify"
)

// loadNotifyConfig reads the notify: section of file (notify.LoadFile:
// "" the user's config file, "none" nothing).
func loadNotifyConfig(file string) (notify.Config, error) { return notify.LoadFile(file) }

// notifyWarnings prints the notifications that did not go out (the job's
// outcome is not changed by them).
func notifyWarnings(g *GlobalOptions, undelivered []string) {
	for _, s := range undelivered {
		fmt.Fprintf(g.stderr, "dit: warning: notification %s\n", s)
	}
}
