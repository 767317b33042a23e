package offload

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// Every field of JobSpec is what the job is: New records it and Resume
// restores it, whatever the front end gives, so a resumed job copies the
// same cards to the same places, with the same hashes, checks and hash
// lists. The fields are walked by reflection: one added to JobSpec fails
// here until it has a value below, and then until Resume restores it (a
// setting a resume does not keep belongs to Env).
func TestJobSpecSurvivesResume(t *testing.T) {
	e := newEnv(t)
	canon := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		require.NoError(t, err)
		return r
	}
	a := testCard(t, e.dir, "A001", map[string]string{"C001.mov": "a", "C001.RMD": "r"})
	b := testCard(t, e.dir, "B001", map[string]string{"C001.mov": "b"})
	// No value is a default (defaults could hide a field not restored),
	// and each is in the form New records: paths resolved, the hashes in
	// hashing.ParseList's order.
	values := map[string]any{
		"Name":          "day07",
		"Cards":         []string{canon(b), canon(a)},
		"Dests":         []string{canon(e.dest("d2")), canon(e.dest("d1"))},
		"Then":          []string{canon(e.dest("shuttle"))},
		"ThenParallel":  2,
		"Hashes":        []hashing.Algo{hashing.SHA1, hashing.XXH3},
		"Verify":        VerifySourceDest,
		"VerifyAll":     true,
		"Layout":        "{date}/{job}/{card}",
		"OnConflict":    ConflictRename,
		"IncludeHidden": true,
		"Ignore":        []string{"*.RMD", "CACHE/"},
		"MHL":           "both",
		"Proxies":       "dnxhr-lb,burnin",
		"ProxiesTo":     []string{canon(e.dest("d1")), canon(e.dest("shuttle"))},
		"RcloneConfig":  filepath.Join(e.dir, "rclone.conf"),
		"RemoteBwLimit": int64(4_000_000),
	}
	var spec JobSpec
	sv := reflect.ValueOf(&spec).Elem()
	for i := range sv.NumField() {
		name := sv.Type().Field(i).Name
		v, ok := values[name]
		require.Truef(t, ok, "JobSpec.%s has no value in this test: give it one; a field of JobSpec must be recorded by New and restored by Resume (recordedSpec)", name)
		sv.Field(i).Set(reflect.ValueOf(v))
	}
	require.Len(t, values, sv.NumField(), "a value here names no field of JobSpec")

	o := e.opts(nil, nil)
	o.JobSpec = spec
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, spec, j.opts.JobSpec, "New runs the job as given")
	j.Close()
	require.NoError(t, e.cat.SetJobState(j.ID(), catalog.JobInterrupted, time.Now(), ""))

	// A front end resuming gives no JobSpec (dit offload --resume N).
	r, err := Resume(context.Background(), e.cat, j.ID(), Options{Env: o.Env, Hooks: o.Hooks})
	require.NoError(t, err)
	defer r.Close()
	got := reflect.ValueOf(r.opts.JobSpec)
	for i := range sv.NumField() {
		require.Equalf(t, sv.Field(i).Interface(), got.Field(i).Interface(),
			"JobSpec.%s is not restored by Resume: record it in New and restore it in recordedSpec, or move it to Env", sv.Type().Field(i).Name)
	}
}

// A job recorded before its proxies were (a catalog before version 18:
// proxies NULL) is resumed with the proxies the front end gives; a job
// that recorded them keeps them, whatever is given.
func TestResumeProxiesUnrecordedTakesGiven(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, e.dir, "A001", map[string]string{"C001.mov": "a"})
	o := e.opts([]string{a}, []string{e.dest("d1")})
	o.Proxies = "prores-proxy"
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	j.Close()
	require.NoError(t, e.cat.SetJobState(j.ID(), catalog.JobInterrupted, time.Now(), ""))

	given := Options{Env: o.Env, Hooks: o.Hooks}
	given.Proxies, given.ProxiesTo = "h264,burnin", []string{e.dest("d1")}
	r, err := Resume(context.Background(), e.cat, j.ID(), given)
	require.NoError(t, err)
	require.Equal(t, "prores-proxy", r.opts.Proxies, "recorded: kept")
	require.Empty(t, r.opts.ProxiesTo)
	r.Close()
	require.NoError(t, e.cat.SetJobState(j.ID(), catalog.JobInterrupted, time.Now(), ""))

	_, err = e.cat.Exec(`UPDATE jobs SET proxies=NULL WHERE id=?`, j.ID())
	require.NoError(t, err)
	r, err = Resume(context.Background(), e.cat, j.ID(), given)
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, "h264,burnin", r.opts.Proxies, "not recorded: those given")
	require.Equal(t, given.ProxiesTo, r.opts.ProxiesTo)
}
