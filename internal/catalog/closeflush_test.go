package catalog

import (
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A Flush (every read flushes first) racing Close never keeps the writer
// running: Close returns and the flush is answered. The writer used to
// read the closed queue while draining for the flush, an empty write
// each turn, forever: the batch grew until the kernel killed the process
// (dit serve stopped during a poll; 22 GB in a test).
func TestFlushRacingCloseEnds(t *testing.T) {
	rounds := 200 // the old writer ran away within 1-140 of them
	if raceDetector {
		rounds = 20 // ~0.4 s a round under the race detector
	}
	for i := range rounds {
		c, err := Open(filepath.Join(t.TempDir(), "c.db"))
		require.NoError(t, err)
		started, stop := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				c.Flush()
				if n == 0 {
					close(started)
				}
			}
		}()
		<-started
		done := make(chan error, 1)
		go func() { done <- c.Close() }()
		for waiting := true; waiting; {
			select {
			case err := <-done:
				require.NoError(t, err)
				waiting = false
			default:
				require.Less(t, heapBytes(), uint64(1<<30), "round %d: Close has not returned and the heap grows: the writer runs on", i)
				time.Sleep(time.Millisecond)
			}
		}
		close(stop)
		wg.Wait()
	}
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
