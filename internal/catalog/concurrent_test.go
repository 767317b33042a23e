package catalog

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHelperProcessOpen is not a test: TestConcurrentCreation runs the test
// binary again with DIT_TEST_OPEN set, as a second dit process would open
// the catalog. It waits for the go file, so that the processes open at
// the same moment.
func TestHelperProcessOpen(t *testing.T) {
	p := os.Getenv("DIT_TEST_OPEN")
	if p == "" {
		t.Skip("helper process for TestConcurrentCreation")
	}
	goFile := os.Getenv("DIT_TEST_GO")
	for {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c, err := Open(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "OPEN FAILED:", err)
		os.Exit(7)
	}
	j := &Job{Name: "x", State: JobDone, Started: time.Now()}
	if err := c.CreateJob(j); err != nil {
		fmt.Fprintln(os.Stderr, "CREATE FAILED:", err)
		os.Exit(8)
	}
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "CLOSE FAILED:", err)
		os.Exit(9)
	}
	os.Exit(0)
}

// Two (three) dit processes started at once on a catalog that does not
// exist yet: every one opens it, and the catalog ends with both jobs.
func TestConcurrentCreation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 60 processes")
	}
	eachBackend(t, testConcurrentCreation)
}

func testConcurrentCreation(t *testing.T, b backend) {
	const tries, procs = 20, 3
	failures := 0
	for try := 0; try < tries; try++ {
		p := filepath.Join(t.TempDir(), "sub", "catalog.db")
		goFile := p + ".go"
		if b.name == "postgres" {
			p, goFile = b.loc(t), filepath.Join(t.TempDir(), "go")
		}
		var wg sync.WaitGroup
		outs := make([]string, procs)
		codes := make([]int, procs)
		cmds := make([]*exec.Cmd, procs)
		for i := range cmds {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessOpen$")
			cmd.Env = append(os.Environ(), "DIT_TEST_OPEN="+p, "DIT_TEST_GO="+goFile)
			var b strings.Builder
			cmd.Stdout, cmd.Stderr = &b, &b
			require.NoError(t, cmd.Start())
			cmds[i] = cmd
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				cmd.Wait()
				outs[i], codes[i] = b.String(), cmd.ProcessState.ExitCode()
			}(i)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(goFile), 0o755))
		require.NoError(t, os.WriteFile(goFile, nil, 0o644))
		wg.Wait()
		for i := range cmds {
			if codes[i] != 0 {
				failures++
				t.Errorf("try %d, process %d: exit %d: %s", try, i, codes[i], outs[i])
			}
		}
		c := open(t, p)
		jobs, err := c.Jobs()
		require.NoError(t, err)
		require.Len(t, jobs, procs, "try %d: every process's job is in the catalog", try)
		c.Close()
	}
	require.Zero(t, failures, "%d of %d processes failed to open a new catalog", failures, tries*procs)
}
