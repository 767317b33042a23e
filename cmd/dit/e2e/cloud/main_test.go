package cloud

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// TestMain builds the dit binary these tests run (e2e.Bin), once for
// all the end-to-end packages; under -short it runs none of them. The
// S3 server the tests shared is stopped after them.
func TestMain(m *testing.M) {
	code := e2e.Run(m)
	if shared.s != nil {
		shared.s.Stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// shared is the S3 server (moto on 127.0.0.1, the rclone remote
// "ditcloud") the package's tests share, each in a bucket of its own:
// started by the first test that asks, stopped by TestMain. (A server
// per test cost about a second of CPU and 2-3 s to answer, each.)
var shared struct {
	once sync.Once
	s    *s3test.Server
	dir  string
	err  error
	n    atomic.Int64
}

// bucket gives t a new bucket of its own on the package's S3 server,
// and the server. A test that tells the job's processes by the server's
// address (rclonesOf), or needs a server that checks keys, starts its
// own.
func bucket(t *testing.T) (*s3test.Server, string) {
	t.Helper()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed: skipping the cloud test (Debian: apt-get install rclone)")
	}
	bin := s3test.Moto(t) // skips, saying why, where moto cannot be installed
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "dit-e2e-cloud-s3-"); shared.err == nil {
			shared.s, shared.err = s3test.StartMoto(bin, shared.dir, "ditcloud", "")
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	bk := fmt.Sprintf("shots%02d", shared.n.Add(1))
	shared.s.Rclone(t, "mkdir", "ditcloud:"+bk)
	return shared.s, bk
}
