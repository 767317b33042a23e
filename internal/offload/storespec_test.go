package offload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// CheckRemoteDests is the rule the engine applies: for every form, its
// answer is Check's (the same refusal, word for word, or none of the
// cloud ones), so a front end that asks it before the start says what
// Start would get.
func TestCheckRemoteDestsIsTheEngines(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"a.mov": "a"})
	raid, shuttle := e.dest("raid"), e.dest("shuttle")
	for _, c := range []struct {
		dests, then []string
		verify      VerifyMode
		want        string // "" accepted
		reason      RemoteReason
	}{
		{[]string{raid, "rclone:x:b"}, []string{shuttle}, "", "a cloud destination (rclone:...) and --then folders in one job: give the cloud destinations alone with --then (or -d), and the shuttles in another job", RemoteBesideThen},
		{[]string{raid}, []string{shuttle, "rclone:x:b"}, "", "and --then folders in one job", RemoteBesideThen},
		{[]string{raid}, []string{"rclone:nocolon"}, "", `cloud destination "rclone:nocolon": write it rclone:REMOTE:PATH`, RemoteBadDest},
		{[]string{"rclone:x:b"}, nil, VerifyNone, "a cloud destination with --verify none: dit counts a cloud copy only once the storage's checksum (or a read-back) matches the card; use --verify dest (default)", RemoteNoReadBack},
		{[]string{raid, "rclone:x:b"}, nil, VerifyDest, "", 0},
		{[]string{raid}, []string{"rclone:x:b", "rclone:y:c"}, VerifySourceDest, "", 0},
		{[]string{"rclone:x:b"}, nil, "", "", 0},
		{[]string{raid}, []string{shuttle}, VerifyDest, "", 0}, // no cloud: not this rule's
	} {
		err := CheckRemoteDests(c.dests, c.then, c.verify)
		o := e.opts([]string{card}, c.dests)
		o.Then, o.Verify = c.then, c.verify
		engine := Check(o)
		if c.want == "" {
			require.NoError(t, err, "%v %v", c.dests, c.then)
			require.NoError(t, engine, "%v %v", c.dests, c.then)
			continue
		}
		require.ErrorContains(t, err, c.want, "%v %v", c.dests, c.then)
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
		var cr *RemoteRefusal
		require.ErrorAs(t, err, &cr)
		require.Equal(t, c.reason, cr.Reason, "a front end words it by its reason")
		require.EqualError(t, engine, err.Error(), "Check refuses it in the same words")
	}
}

// RemoteRuns says where each destination goes: a cloud one beside a
// folder to the second run (uploaded from the first copy), cloud ones
// alone stay in the first run (streamed from the card), --then as given.
func TestCloudRuns(t *testing.T) {
	first, second, moved := RemoteRuns([]string{"/raid", "rclone:s3:show", "/shuttle"}, nil)
	require.Equal(t, []string{"/raid", "/shuttle"}, first)
	require.Equal(t, []string{"rclone:s3:show"}, second)
	require.Equal(t, []string{"rclone:s3:show"}, moved)

	first, second, moved = RemoteRuns([]string{"rclone:s3:show"}, nil)
	require.Equal(t, []string{"rclone:s3:show"}, first)
	require.Empty(t, second)
	require.Empty(t, moved)

	first, second, moved = RemoteRuns([]string{"/raid"}, []string{"rclone:s3:show"})
	require.Equal(t, []string{"/raid"}, first)
	require.Equal(t, []string{"rclone:s3:show"}, second)
	require.Empty(t, moved)

	o := Options{JobSpec: JobSpec{Dests: []string{"/raid", "rclone:s3:show"}}}
	require.NoError(t, splitStores(&o))
	require.Equal(t, []string{"/raid"}, o.Dests, "splitStores moves it as RemoteRuns says")
	require.Equal(t, []string{"rclone:s3:show"}, o.Then)
}
