package offload

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A small file's block comes from the small buffers, a large file's
// from the large ones; each goes back to its own set, and neither set
// makes more than its count.
func TestPoolSmallFilesTakeSmallBuffers(t *testing.T) {
	ctx := context.Background()
	p := newPool(4, 256<<10)
	var small, large []*buffer
	for range 4 {
		b, err := p.get(ctx, 512)
		require.NoError(t, err)
		require.Len(t, b.b, smallBlock)
		small = append(small, b)
		b, err = p.get(ctx, 10<<20)
		require.NoError(t, err)
		require.Len(t, b.b, 256<<10)
		large = append(large, b)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err := p.get(done, 100)
	require.ErrorIs(t, err, context.Canceled, "the small set is used up: the next waits for one back")
	_, err = p.get(done, 1<<20)
	require.ErrorIs(t, err, context.Canceled, "the large set too")
	for _, b := range append(small, large...) {
		b.refs.Store(1)
		b.release()
	}
	require.Len(t, p.free, 4)
	require.Len(t, p.small.free, 4)
	b, err := p.get(ctx, smallBlock)
	require.NoError(t, err)
	require.Len(t, b.b, smallBlock, "a file of smallBlock bytes is small")
	b, err = p.get(ctx, smallBlock+1)
	require.NoError(t, err)
	require.Len(t, b.b, 256<<10)
	require.Equal(t, int32(4), p.made.Load())
	require.Equal(t, int32(4), p.small.made.Load())
}
