package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
)

// Warnings reach a person: as lines while the job runs (plain and bars)
// and again in the summary.
func TestWarningsArePrinted(t *testing.T) {
	msg := `array "cart": a.mov: stripe 0 position 1 (blade role 1) rebuilt from parity (repaired-on-read)`
	var plain bytes.Buffer
	p := &plainPrinter{w: &plain}
	p.Event(offload.Event{Type: offload.EvWarning, Time: time.Now(), Message: msg})
	p.Event(offload.Event{Type: offload.EvWarning, Time: time.Now(), Card: "A001", Message: "sealing: disk full"})
	require.Equal(t, "warning: "+msg+"\nA001: warning: sealing: disk full\n", plain.String())

	var tty bytes.Buffer
	tp := &ttyPrinter{w: &tty}
	tp.Event(offload.Event{Type: offload.EvWarning, Message: msg})
	require.Equal(t, "warning: "+msg+"\n", tty.String())

	var sum bytes.Buffer
	writeSummary(&sum, &offload.Summary{JobID: 3, State: "done", Warnings: []string{msg}}, "/tmp/c.db", "", nil)
	require.Contains(t, sum.String(), "Warnings:\n  "+msg+"\n")
}
