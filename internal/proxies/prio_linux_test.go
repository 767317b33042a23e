package proxies

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// ffmpeg is born at nice 19 in the idle I/O class.
func TestStartLowPriority(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("sleep not installed")
	}
	cmd := exec.Command("sleep", "60")
	require.NoError(t, Start(cmd))
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	nice, class, err := Priority(cmd.Process.Pid)
	if err != nil {
		t.Skipf("reading priorities: %v", err)
	}
	require.Equal(t, 19, nice)
	require.Equal(t, ioprioClassIdle, class)
	// The lowered thread is not reused: a child dit starts otherwise
	// keeps dit's priority.
	for range 20 {
		plain := exec.Command("sleep", "60")
		require.NoError(t, plain.Start())
		n, c, err := Priority(plain.Process.Pid)
		plain.Process.Kill()
		plain.Wait()
		require.NoError(t, err)
		require.NotEqual(t, 19, n, "a plain child is not niced")
		require.NotEqual(t, ioprioClassIdle, c)
	}
}
