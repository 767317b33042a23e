package offload

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// A card offloaded to raid1 by one job and to raid2 by a later one,
// looked up for raid1 and raid3: the message names raid1 under the job
// that wrote it there, never the later job, which did not.
func TestPriorMessageNamesTheJobThatWroteEachCopy(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "cards"), "A002", map[string]string{"C001.mov": bigContent(5000, 1)})
	raid1, raid2, raid3 := e.dest("raid1"), e.dest("raid2"), e.dest("raid3")
	var ids []int64
	for _, d := range []string{raid1, raid2} {
		o := e.opts([]string{a}, []string{d})
		o.MHL = "none"
		s, err := e.run(o)
		require.NoError(t, err)
		require.Equal(t, ExitOK, s.ExitCode)
		ids = append(ids, s.JobID)
	}
	priors, _, err := FindPrior(context.Background(), e.cat, nil, []string{a}, false, nil, raid1, raid3)
	require.NoError(t, err)
	p := priors[0]
	require.NotNil(t, p)
	require.Equal(t, []string{raid1}, p.Covered)
	require.Equal(t, []string{raid3}, p.Missing)
	require.Regexp(t, fmt.Sprintf(`^A002 was offloaded in job %d on \d{4}-\d\d-\d\d, verified on %s; not yet on %s$`, ids[0], regexp.QuoteMeta(raid1), regexp.QuoteMeta(raid3)), p.Message())

	// Both raids given: each under its own job.
	priors, _, err = FindPrior(context.Background(), e.cat, nil, []string{a}, false, nil, raid2, raid1)
	require.NoError(t, err)
	p = priors[0]
	require.True(t, p.Done())
	msg := p.Message()
	require.Contains(t, msg, fmt.Sprintf("job %d on ", ids[0]))
	require.Contains(t, msg, fmt.Sprintf("job %d on ", ids[1]))
	require.Regexp(t, fmt.Sprintf(`verified on %s(;|$)`, regexp.QuoteMeta(raid2)), msg)
	require.Regexp(t, fmt.Sprintf(`verified on %s(;|$)`, regexp.QuoteMeta(raid1)), msg)
}
