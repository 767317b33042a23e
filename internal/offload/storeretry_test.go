//go:build unix

package offload

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// flakyStore is a real store whose uploads of one object fail: the
// first fails of them (all: fails < 0) take cut bytes of the stream,
// say "connection refused" and end with err, as an S3 server gone would
// leave them (no object). onFail, if set, runs at each failure.
type flakyStore struct {
	dest.Store
	name   string // the object's name ends so
	fails  int
	cut    int64
	err    error
	onFail func()
	mu     sync.Mutex
	calls  int
}

func (s *flakyStore) PutStream(ctx context.Context, rel string, size int64, body io.Reader, onErr func(string)) error {
	if !strings.HasSuffix(rel, s.name) {
		return s.Store.PutStream(ctx, rel, size, body, onErr)
	}
	s.mu.Lock()
	s.calls++
	fail := s.fails < 0 || s.calls <= s.fails
	s.mu.Unlock()
	if !fail {
		return s.Store.PutStream(ctx, rel, size, body, onErr)
	}
	io.CopyN(io.Discard, body, min(s.cut, size))
	if onErr != nil {
		onErr("dial tcp 127.0.0.1:9: connect: connection refused")
	}
	if s.onFail != nil {
		s.onFail()
	}
	return s.err
}

func (s *flakyStore) putCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// errRefused is the error of an upload whose server is gone, in rclone's
// words.
var errRefused = errors.New("rclone copyurl rclone:ditcloud:shots: Put \"http://127.0.0.1:9/shots\": dial tcp 127.0.0.1:9: connect: connection refused")

// retryJob is a card of a 3 MiB clip and two small files streamed to
// the S3 server s alone, the clip's uploads failing as f says; waits
// gets each wait before a retry (wait, if set, waits it).
func retryJob(t *testing.T, e *env, s *s3test.Server, f *flakyStore, waits *[]time.Duration, wait func(int) error) (Options, string) {
	card := testCard(t, e.dir, "A001", map[string]string{
		"CLIPS/clip.mov": bigContent(3<<20, 11), "CLIPS/clip.xml": bigContent(2_000, 12), "sound.wav": bigContent(50_000, 13)})
	o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/retry"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	f.name = "CLIPS/clip.mov"
	o.WrapStore = func(st dest.Store) dest.Store { f.Store = st; return f }
	var mu sync.Mutex
	o.RetryWait = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		n := len(*waits)
		mu.Unlock()
		if wait != nil {
			return wait(n)
		}
		return ctx.Err()
	}
	return o, card
}

// A streamed file whose upload fails (its server gone a while) is read
// again from the card and sent again, waiting longer before each retry:
// it ends verified, the object the card's bytes. Each retry is recorded
// (the card's and the destination's retries; while it waits, the stall
// says the cause and "retry 3 of 10"); the bytes read and sent again are
// counted apart: the card's bytes copied and the destination's bytes
// written are the card's size, once, and so are the bytes read from the
// card that the job's activity records.
func TestStreamedUploadIsTriedAgain(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	f := &flakyStore{fails: 3, cut: 1<<20 + 1<<19, err: errRefused}
	saw := make(chan string, 1)
	var waits []time.Duration
	o, card := retryJob(t, e, s, f, &waits, func(n int) error {
		if n < 3 {
			return nil
		}
		// The third retry waits until the progress said it.
		select {
		case <-saw:
			return nil
		case <-time.After(time.Minute):
			return errors.New("the stall was never said")
		}
	})
	o.StallAfter = time.Millisecond
	var j *Job
	var said string
	var over []string
	o.OnEvent = func(ev Event) {
		if ev.Type != EvProgress {
			return
		}
		c := ev.Progress.Cards[0]
		if raw := j.cardList()[0]; raw.bytesCopied.Load() > c.Bytes || raw.destWritten[0].Load() > c.Dests[0].Bytes {
			over = append(over, "above 100 %")
		}
		if st := c.Stall; st != nil && st.Retry == 3 && said == "" {
			said = st.String()
			saw <- said
		}
	}
	var err error
	j, err = New(context.Background(), o)
	require.NoError(t, err)
	s1, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Empty(t, over, "no figure above the card's")
	require.Regexp(t, `^ditcloud: connection refused, retry 3 of 10, since \d+s$`, said)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.True(t, s1.Cards[0].SafeToFormat, s1.Cards[0].Verdict)
	require.Equal(t, 4, f.putCalls(), "sent 4 times: 3 failed, the 4th went up")
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, waits, "a longer wait before each retry")

	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[0].ID)
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, fl := range files {
		require.Equal(t, StateVerified, fl.State, fl.Rel)
		require.Equal(t, "s3-etag:md5", fl.Copies[0].VerifyAlgos, fl.Rel)
	}
	got := s.Rclone(t, "cat", "ditcloud:shots/retry/day01/A001/CLIPS/clip.mov")
	require.True(t, got == string(mustRead(t, filepath.Join(card, "CLIPS", "clip.mov"))), "the object is the card's file")

	p := j.Snapshot()
	c := p.Cards[0]
	require.Equal(t, 3, c.Retries)
	require.Equal(t, 3, c.Dests[0].Retries)
	size := int64(3<<20 + 2_000 + 50_000)
	raw := j.cardList()[0]
	require.Equal(t, size, raw.bytesCopied.Load(), "every byte read from the card once")
	require.Equal(t, size, raw.destWritten[0].Load(), "every byte written to the cloud once")
	require.Positive(t, c.BytesResent, "the clip read again, counted apart")
	require.Positive(t, c.Dests[0].BytesResent, "the clip sent again, counted apart")
	require.LessOrEqual(t, c.Dests[0].BytesResent, 3*int64(3<<20))
	require.Zero(t, raw.lc.dests[0].retry.Load(), "no retry in progress once it went up")
	a, err := JobActivity(e.cat, s1.JobID)
	require.NoError(t, err)
	require.Equal(t, size, a.BytesCopied, "the bytes read from the card")
}

// A streamed file whose every upload fails is sent 1+StreamRetries
// times, then fails, naming the object and the resume; the card's other
// files are verified, no object of it is in the bucket.
func TestStreamedUploadFailsAfterItsRetries(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	f := &flakyStore{fails: -1, cut: 100_000, err: errRefused}
	var waits []time.Duration
	o, _ := retryJob(t, e, s, f, &waits, nil)
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	s1, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitSomeFailed, s1.ExitCode)
	require.False(t, s1.Cards[0].SafeToFormat)
	require.Equal(t, 1+StreamRetries, f.putCalls())
	require.Equal(t, []time.Duration{1, 2, 4, 8, 16, 30, 30, 30, 30, 30}, secondsOf(waits), "1 s doubling to 30 s")

	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[0].ID)
	require.NoError(t, err)
	for _, fl := range files {
		if fl.Rel != "CLIPS/clip.mov" {
			require.Equal(t, StateVerified, fl.State, fl.Rel)
			continue
		}
		require.Equal(t, StateFailed, fl.State)
		require.Equal(t, "upload of rclone:ditcloud:shots/retry/day01/A001/CLIPS/clip.mov failed: "+errRefused.Error()+
			" (tried 11 times): try again with dit offload --resume 1", fl.Copies[0].Error)
	}
	objs, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/retry"}, "day01/A001")
	require.NoError(t, err)
	require.NotContains(t, objs, "CLIPS/clip.mov")
	c := j.Snapshot().Cards[0]
	require.Equal(t, StreamRetries, c.Retries)
	require.Equal(t, StreamRetries, c.Dests[0].Retries)
	require.Equal(t, int64(3<<20+2_000+50_000), j.cardList()[0].bytesCopied.Load(), "read again, never copied twice")
}

// secondsOf is ds in whole seconds.
func secondsOf(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d / time.Second
	}
	return out
}

// fatalErr is an error the store says trying again cannot mend.
type fatalErr struct{ error }

func (fatalErr) Fatal() bool { return true }

// An upload that fails with an error trying again cannot mend (rclone's
// --max-transfer limit reached) is not tried again; one whose card gives
// other bytes the second time it is read fails, the card read
// unreliably.
func TestStreamedUploadNotTriedAgain(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	t.Run("fatal", func(t *testing.T) {
		e := newEnv(t)
		f := &flakyStore{fails: -1, cut: 100_000, err: fatalErr{errors.New("rclone copyurl: max transfer limit reached as set by --max-transfer")}}
		var waits []time.Duration
		o, _ := retryJob(t, e, s, f, &waits, nil)
		s1, err := e.run(o)
		require.NoError(t, err)
		require.False(t, s1.Cards[0].SafeToFormat)
		require.Equal(t, 1, f.putCalls())
		require.Empty(t, waits)
		require.Contains(t, failureOf(t, e, s1, "CLIPS/clip.mov"), "max transfer limit reached as set by --max-transfer (tried once): try again with dit offload --resume 1")
	})
	t.Run("unstable card", func(t *testing.T) {
		e := newEnv(t)
		f := &flakyStore{fails: 1, cut: 100_000, err: errRefused}
		var waits []time.Duration
		o, card := retryJob(t, e, s, f, &waits, nil)
		f.onFail = func() {
			// The card gives other bytes (of the same size) from now on.
			p := filepath.Join(card, "CLIPS", "clip.mov")
			require.NoError(t, os.WriteFile(p, []byte(bigContent(3<<20, 99)), 0o644))
		}
		s1, err := e.run(o)
		require.NoError(t, err)
		require.False(t, s1.Cards[0].SafeToFormat)
		require.Equal(t, 2, f.putCalls())
		require.Contains(t, failureOf(t, e, s1, "CLIPS/clip.mov"), "it read differently twice (md5 ")
	})
}

// failureOf is the error of file rel of the job's first card.
func failureOf(t *testing.T, e *env, s *Summary, rel string) string {
	k, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[0].ID)
	require.NoError(t, err)
	for _, fl := range files {
		if fl.Rel == rel {
			require.Equal(t, StateFailed, fl.State)
			return fl.Error
		}
	}
	t.Fatalf("no file %s", rel)
	return ""
}
