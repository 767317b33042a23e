//go:build linux

package offload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A copy whose path on a destination would pass the system's limit is
// refused at the start, naming the file and the destination: never
// copied and failed after.
func TestACopyPathTooLongIsRefusedAtTheStart(t *testing.T) {
	e := newEnv(t)
	name := strings.Repeat("n", 200) + ".mov"
	card := testCard(t, e.dir, "A001", map[string]string{"CLIPS/" + name: "frames"})
	deep := e.dir
	for len(deep) < PathMax()-300 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	require.NoError(t, os.MkdirAll(deep, 0o755))
	_, err := New(context.Background(), e.opts([]string{card}, []string{deep}))
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "%v", err)
	require.Contains(t, err.Error(), name)
	require.Contains(t, err.Error(), deep)
	jobs, err := e.cat.Jobs()
	require.NoError(t, err)
	require.Empty(t, jobs, "nothing recorded")
}
