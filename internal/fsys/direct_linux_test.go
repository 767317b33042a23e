package fsys

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Read-back through O_DIRECT returns every byte, whatever the file size
// and however the caller reads (aligned blocks, odd slices, ReadFull at the
// end), and falls back to the cache where O_DIRECT is refused.
func TestOpenNoCacheDirectReadsExactly(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	for _, size := range []int{0, 1, 4095, 4096, 4097, 256 << 10, (1 << 20) + 123} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*31 + size)
		}
		p := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		for _, bs := range []int{4096, 256 << 10, 1000, 65536 + 7} {
			f, err := OS{}.OpenNoCache(p)
			require.NoError(t, err)
			if st.Type != unix.TMPFS_MAGIC {
				_, direct := f.(*directFile)
				require.True(t, direct, "O_DIRECT on a disk filesystem")
			}
			buf := alignedBuf(bs)[:bs]
			var got bytes.Buffer
			for {
				n, err := io.ReadFull(f, buf)
				got.Write(buf[:n])
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					break
				}
				require.NoError(t, err, "size %d, block %d", size, bs)
			}
			require.NoError(t, f.Close())
			require.True(t, bytes.Equal(data, got.Bytes()), "size %d, block %d", size, bs)
		}
	}
}
