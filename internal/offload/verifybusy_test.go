package offload

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
)

// busyLimiter is a read-back that takes perByte of the job's clock for
// each byte it reads back, and looks at the card's counters before each
// block: what the live model would see at a tick then.
type busyLimiter struct {
	recLimiter
	mu      sync.Mutex
	now     time.Time
	perByte time.Duration
	look    func() live.Counters
	seen    []live.DestCounters
}

func (b *busyLimiter) Now() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now
}

func (b *busyLimiter) WaitVerify(ctx context.Context, card, dest, n int) error {
	if b.look != nil {
		k := b.look()
		if len(k.Dests) > 0 {
			b.seen = append(b.seen, k.Dests[0])
		}
	}
	b.mu.Lock()
	b.now = b.now.Add(time.Duration(n) * b.perByte)
	b.mu.Unlock()
	return ctx.Err()
}

// A destination's read-back time (live.DestCounters.VerifyBusy, what
// the model measures its rate by) grows with its bytes, block by block,
// not in one lump at each file's end: at any moment inside a file the
// bytes read back over the time counted are the read-back's own rate.
// Counted at the file's end, a tick saw the whole file's time beside
// only its last second's bytes, and a card of clips of a few seconds
// each was estimated to read back at a fraction of its rate ("safe in
// 12s" for what took 2).
func TestReadBackTimeCountedAsItsBytesCome(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", map[string]string{
		"CLIPS/C001.mov": bigContent(1_000_000, 1), "CLIPS/C002.mov": bigContent(600_000, 2)})
	o := e.opts([]string{a}, []string{e.dest("d1")})
	lim := &busyLimiter{recLimiter: *newRecLimiter(), now: time.Unix(1_800_000_000, 0), perByte: time.Microsecond} // 1 MB/s
	o.Limiter, o.Now = lim, lim.Now
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	lim.look = func() live.Counters {
		cs := j.cardList()
		require.Len(t, cs, 1)
		return cs[0].counters(lim.Now())
	}
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat, s.Cards[0].Verdict)

	inside := 0
	for _, d := range lim.seen {
		if d.BytesVerified == 0 {
			continue
		}
		if d.BytesVerified%1_000_000 != 0 && d.BytesVerified != 1_600_000 {
			inside++
		}
		want := time.Duration(d.BytesVerified) * lim.perByte
		require.Equal(t, want, d.VerifyBusy, "after %d bytes read back (%d files)", d.BytesVerified, d.FilesVerified)
	}
	require.Greater(t, inside, 10, "looked inside the files, block by block")
	end := cardProgress(j.Snapshot(), "A001")
	require.Equal(t, int64(1_600_000), end.Dests[0].BytesVerified)
}
