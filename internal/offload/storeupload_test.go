package offload

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload/dest"
)

// causeStore names errors as the remote kind does ("s3: ...").
type causeStore struct{ dest.Store }

func (causeStore) Cause(e string) string {
	if e == "" {
		return ""
	}
	return "s3: " + e
}

// uploadRun is a card run uploading need bytes to one store, as far as
// uploadProgress sees it.
func uploadRun(need int64) *cardRun {
	j := &Job{}
	j.opts.Now = time.Now
	c := &cardRun{j: j}
	c.stores = []dest.Store{causeStore{}}
	c.destNeed, c.destWritten = []int64{need}, make([]atomic.Int64, 1)
	c.lc.dests = make([]destLive, 1)
	return c
}

// An upload's progress as the transfer tells it: bytes beyond what the
// destination needs were sent again, counted apart (never as copied or
// written); each resend after an error the transfer said is a retry at
// the destination and on the card, once an error (rclone's own
// low-level retries, which a transfer through the daemon does not
// count as a new try: its limit unknown), and a new try of the transfer
// is one (retry 1 of Tries-1), its resend not counted again.
func TestUploadProgressCountsResentBytesAsRetries(t *testing.T) {
	type step struct {
		p               dest.Progress
		retries, retry  int
		of              int
		written, resent int64
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"no error, no resend", []step{
			{p: dest.Progress{Bytes: 60, Try: 1, Tries: 3}, written: 60},
			{p: dest.Progress{Bytes: 100, Try: 1, Tries: 3}, written: 100},
		}},
		{"a low-level resend after an error: one retry", []step{
			{p: dest.Progress{Bytes: 60, Try: 1, Tries: 3}, written: 60},
			{p: dest.Progress{Bytes: 60, Try: 1, Tries: 3, Err: "connection reset by peer"}, written: 60},
			{p: dest.Progress{Bytes: 100, Try: 1, Tries: 3, Err: "connection reset by peer"}, written: 100},
			{p: dest.Progress{Bytes: 130, Try: 1, Tries: 3, Err: "connection reset by peer"}, written: 100, resent: 30, retries: 1, retry: 1},
			{p: dest.Progress{Bytes: 160, Try: 1, Tries: 3, Err: "connection reset by peer"}, written: 100, resent: 60, retries: 1, retry: 1},
			// A second error, its own resend: another retry.
			{p: dest.Progress{Bytes: 170, Try: 1, Tries: 3, Err: "i/o timeout"}, written: 100, resent: 70, retries: 2, retry: 2},
		}},
		{"bytes sent again, no error said: still a retry", []step{
			{p: dest.Progress{Bytes: 100, Try: 1, Tries: 3}, written: 100},
			{p: dest.Progress{Bytes: 150, Try: 1, Tries: 3}, written: 100, resent: 50, retries: 1, retry: 1},
			{p: dest.Progress{Bytes: 180, Try: 1, Tries: 3}, written: 100, resent: 80, retries: 1, retry: 1},
		}},
		{"a new try: retry 1 of 2, its resend not counted again", []step{
			{p: dest.Progress{Bytes: 70, Try: 1, Tries: 3}, written: 70},
			{p: dest.Progress{Bytes: 70, Try: 2, Tries: 3, Err: "connection refused"}, written: 70, retries: 1, retry: 1, of: 2},
			{p: dest.Progress{Bytes: 170, Try: 2, Tries: 3, Err: "connection refused"}, written: 100, resent: 70, retries: 1, retry: 1, of: 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := uploadRun(100)
			var seen uploadSeen
			for i, s := range tc.steps {
				c.uploadProgress(0, s.p, &seen)
				d := &c.lc.dests[0]
				require.Equal(t, s.written, c.destWritten[0].Load(), "step %d: written", i)
				require.Equal(t, s.written, c.bytesCopied.Load(), "step %d: copied", i)
				require.Equal(t, s.resent, d.resent.Load(), "step %d: resent there", i)
				require.Equal(t, s.resent, c.lc.resent.Load(), "step %d: resent", i)
				require.Equal(t, int64(s.retries), d.retries.Load(), "step %d: retries there", i)
				require.Equal(t, int64(s.retries), c.lc.retries.Load(), "step %d: the card's retries", i)
				require.Equal(t, int64(s.retry), d.retry.Load(), "step %d: retry", i)
				require.Equal(t, int64(s.of), d.of.Load(), "step %d: of", i)
				if s.p.Err != "" {
					require.Equal(t, "s3: "+s.p.Err, d.lastErr.Load(), "step %d: the error said", i)
				}
			}
		})
	}
}
