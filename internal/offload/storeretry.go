package offload

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// A streamed file whose upload to a destination fails (the storage or
// the link gone for a while: "connection refused") is sent again: read
// again from the card and streamed to the destinations that did not take
// it, up to StreamRetries times, after a wait that starts at
// StreamBackoff and doubles up to StreamBackoffMax (1, 2, 4, 8, 16, then
// 30 s: ten retries span some three minutes, so a minute's outage is
// ridden out). An error the store says trying again cannot mend (its
// Fatal method: rclone's --max-transfer limit reached) is not tried
// again, nor is anything once the job is stopped.
//
// Every read that goes to the end must hash as the first (else the file
// fails: the card reads unreliably); a try whose read is not needed (the
// first read's hashes are known) stops reading once every upload of it
// ended. Bytes read or sent again are counted apart (streamAcct), never
// as copied or written bytes. Each retry is recorded at its destination
// (destRetry: the live model's "retry 3 of 10" and the error's cause).
// A retry never writes over an object: before it, the destination is
// listed, and an object that a failed try left at the name after all is
// this run's, verified as any other (never sent again); a destination
// that cannot be listed is not sent to in that try.

// Streamed uploads' retries (see above).
const (
	StreamRetries    = 10
	StreamBackoff    = time.Second
	StreamBackoffMax = 30 * time.Second
)

// streamBackoff is the wait before retry n (1: the first).
func streamBackoff(n int) time.Duration {
	d := StreamBackoff
	for i := 1; i < n && d < StreamBackoffMax; i++ {
		d *= 2
	}
	return min(d, StreamBackoffMax)
}

// retryWait waits d (Options.RetryWait), or until ctx ends.
func (j *Job) retryWait(ctx context.Context, d time.Duration) error {
	if w := j.opts.RetryWait; w != nil {
		return w(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// streamAcct counts one streamed file's bytes over its tries: how far
// into it bytes were counted as read from the card (the card's
// bytesCopied) and as written to each destination; a try that reads or
// sends them again counts them as resent.
type streamAcct struct {
	readTo  int64
	sentTo  map[int]int64
	whole   bool // a read of it went to the end (it counts in filesCopied)
	mayStop bool // this try's read may stop once every upload ended
}

// fresh is the part of bytes [at, at+k) beyond *to, which moves there.
func fresh(to *int64, at, k int64) int64 {
	f := max(0, at+k-max(at, *to))
	*to = max(*to, at+k)
	return f
}

// read counts bytes [at, at+k) of the file read from the card.
func (a *streamAcct) read(c *cardRun, at, k int64) {
	if a == nil {
		return
	}
	f := fresh(&a.readTo, at, k)
	c.bytesCopied.Add(f)
	if k > f {
		c.lc.resent.Add(k - f)
	}
}

// sent counts bytes [at, at+k) of the file taken by destination di.
func (a *streamAcct) sent(c *cardRun, di int, at, k int64) {
	to := a.sentTo[di]
	f := fresh(&to, at, k)
	a.sentTo[di] = to
	c.destWritten[di].Add(f)
	if k > f {
		c.lc.dests[di].resent.Add(k - f)
	}
}

// sendStream reads f from the card and streams it to the destinations
// send, trying again those whose upload failed (above). ref is a read of
// it made before (first: there was one; else the first read that goes to
// the end is the reference). An interrupted job leaves the file as it
// is; after the last try it fails there, saying how to resume.
func (c *cardRun) sendStream(ctx context.Context, f *storeFile, send []int, ref hashing.Sums, first bool) {
	rel, size := f.fp.ent.Rel, f.fp.ent.Size
	acct := &streamAcct{sentTo: map[int]int64{}}
	errs := map[int]error{}
	left := send // still to send
	retried := map[int]bool{}
	defer func() {
		for di := range retried {
			c.retryEnded(di)
		}
	}()
	tries := map[int]int{} // sends to each destination
	var gaveUp []int       // failed with an error no retry mends
	for retry := 0; ; retry++ {
		now := left
		if retry > 0 {
			if now = c.beforeRetry(ctx, f, left, errs, retry, retried); ctx.Err() != nil {
				return
			}
			left = without(left, f.sent)
		}
		if len(now) > 0 {
			for _, di := range now {
				tries[di]++
			}
			acct.mayStop = first
			got, upErrs, whole, err := c.streamRead(ctx, rel, size, now, acct)
			if err != nil {
				c.streamFailed(ctx, f, err)
				return
			}
			if whole && first {
				if _, bad, ok := ref.Compare(got); !ok {
					c.streamFailed(ctx, f, fmt.Errorf("it read differently twice (%s %s, then %s): the medium is not reading reliably", bad, ref.Get(bad), got.Get(bad)))
					return
				}
			} else if whole {
				ref, first = got, true
				f.want, f.rec.Sums = got, got
			}
			for _, di := range now {
				if e := upErrs[di]; e != nil {
					errs[di] = e
				} else {
					f.sent[di] = true
					delete(errs, di)
				}
			}
			left = without(left, f.sent)
		}
		var keep []int
		for _, di := range left {
			if isFatal(errs[di]) {
				gaveUp = append(gaveUp, di)
			} else {
				keep = append(keep, di)
			}
		}
		left = keep
		if len(left) == 0 || ctx.Err() != nil || retry == StreamRetries {
			break
		}
	}
	if ctx.Err() != nil {
		return
	}
	for _, di := range append(gaveUp, left...) {
		c.failedStore(di, f, fmt.Sprintf("upload of %s failed: %v (%s): try again with %s",
			storePath(c.dests[di], relJoin(c.out, rel)), errs[di], triesSaid(tries[di]), c.j.ResumeCommand()))
	}
}

// triesSaid is how many times a file was sent, in words.
func triesSaid(n int) string {
	if n == 1 {
		return "tried once"
	}
	return fmt.Sprintf("tried %d times", n)
}

// without is the destinations of ds whose done is false.
func without(ds []int, done []bool) []int {
	var out []int
	for _, di := range ds {
		if !done[di] {
			out = append(out, di)
		}
	}
	return out
}

// isFatal: err is one that trying again cannot mend (its Fatal method,
// as rclone's fserrors.Fataler).
func isFatal(err error) bool {
	var f interface{ Fatal() bool }
	return errors.As(err, &f) && f.Fatal()
}

// beforeRetry records retry n of f at each destination of left (errs:
// why each failed; retried: those with a retry recorded), waits its
// backoff and returns the destinations to send to now: those that hold
// no object of f's name. One that holds one (a failed try's upload that
// reached the storage after all) has it marked sent by this run, to be
// verified as any; one that cannot be listed is not sent to now (its
// listing's error is its reason).
func (c *cardRun) beforeRetry(ctx context.Context, f *storeFile, left []int, errs map[int]error, n int, retried map[int]bool) []int {
	for _, di := range left {
		if !retried[di] {
			retried[di] = true
			c.retryBegun(di)
		}
		c.destRetry(di, n, StreamRetries, c.stores[di].Cause(errText(errs[di])))
	}
	if c.j.retryWait(ctx, streamBackoff(n)) != nil {
		return nil
	}
	full := relJoin(c.out, f.fp.ent.Rel)
	dir, name := path.Split(full)
	dir = trimSlash(dir)
	var now []int
	for _, di := range left {
		held, err := c.stores[di].Once().ListDir(ctx, dir)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			errs[di] = fmt.Errorf("cannot list %s: %w", storePath(c.dests[di], dir), err)
		default:
			if _, there := held[name]; there {
				f.sent[di] = true
			} else {
				now = append(now, di)
			}
		}
	}
	return now
}

// errText is err's words ("" nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// trimSlash is dir without its trailing slash.
func trimSlash(dir string) string {
	if len(dir) > 0 && dir[len(dir)-1] == '/' {
		return dir[:len(dir)-1]
	}
	return dir
}
