package offload

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// recLimiter records the bytes each wait was asked for.
type recLimiter struct {
	mu     sync.Mutex
	read   map[int]int64
	write  map[[2]int]int64
	verify map[[2]int]int64
	calls  int
}

func newRecLimiter() *recLimiter {
	return &recLimiter{read: map[int]int64{}, write: map[[2]int]int64{}, verify: map[[2]int]int64{}}
}

func (r *recLimiter) WaitRead(ctx context.Context, card, n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read[card] += int64(n)
	return ctx.Err()
}

func (r *recLimiter) WaitWrite(ctx context.Context, card, dest, n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write[[2]int{card, dest}] += int64(n)
	return ctx.Err()
}

func (r *recLimiter) WaitVerify(ctx context.Context, card, dest, n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verify[[2]int{card, dest}] += int64(n)
	r.calls++
	return ctx.Err()
}

func cardBytes(t *testing.T, root string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		if fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	}))
	return n
}

// Every block read back is paced: WaitVerify is asked for exactly the bytes
// of every copy on every destination, and with source+dest for the bytes of
// the card re-read (dest -1).
func TestLimiterPacesEveryReadBack(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	d1, d2 := e.dest("d1"), e.dest("d2")
	o := e.opts([]string{a, b}, []string{d1, d2})
	o.BlockSize = 16 << 10 // several blocks per file
	o.Verify = VerifySourceDest
	lim := newRecLimiter()
	o.Limiter = lim
	s, err := e.run(o)
	require.NoError(t, err)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat, c.Verdict)
	}
	want := map[[2]int]int64{}
	for ci, root := range []string{a, b} {
		n := cardBytes(t, root)
		for _, di := range []int{-1, 0, 1} {
			want[[2]int{ci, di}] = n
		}
	}
	require.Equal(t, want, lim.verify)
	require.Greater(t, lim.calls, 2*3*3, "paced block by block")

	// Without source re-read, only the copies are read back.
	e2 := newEnv(t)
	a2, _ := twoCards(t, e2)
	o2 := e2.opts([]string{a2}, []string{e2.dest("d1")})
	lim2 := newRecLimiter()
	o2.Limiter = lim2
	_, err = e2.run(o2)
	require.NoError(t, err)
	require.Equal(t, map[[2]int]int64{{0, 0}: cardBytes(t, a2)}, lim2.verify)

	// The same card again into the same folder: every file is already
	// there; comparing it reads the destination, then it is read back.
	o3 := e2.opts([]string{a2}, []string{e2.dest("d1")})
	lim3 := newRecLimiter()
	o3.Limiter = lim3
	s3, err := e2.run(o3)
	require.NoError(t, err)
	require.True(t, s3.Cards[0].SafeToFormat, s3.Cards[0].Verdict)
	require.Equal(t, map[[2]int]int64{{0, 0}: 2 * cardBytes(t, a2)}, lim3.verify)
}
