//go:build unix

package cloud

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// Against a server that checks every request's signature (rclone serve
// s3 --auth-key): a wrong secret and a missing key are refused before
// the first byte, exit 2, naming the destination and what to do; no job
// is recorded and the bucket holds nothing. The right keys then upload.
func TestOffloadRefusesCredentialsTheStorageRefuses(t *testing.T) {
	t.Parallel()
	s, env, _, card := setupOn(t, s3test.StartChecked(t, "ditcloud", "shots"), "2MB", "mixed")
	up := "RCLONE_CONFIG_DITCLOUD_"
	for _, c := range []struct {
		name, unset, set, msg string
	}{
		{"a wrong secret", "", up + "SECRET_ACCESS_KEY=" + strings.Repeat("0", len(s.SecretKey)), "the secret key is wrong"},
		{"an unknown key", "", up + "ACCESS_KEY_ID=AKIANOBODY", "the access key is not one the storage knows"},
		{"no key", up + "ACCESS_KEY_ID", "", "access denied: no key given"},
	} {
		var e []string
		for _, kv := range env {
			if c.unset != "" && strings.HasPrefix(kv, c.unset+"=") || strings.HasPrefix(kv, up+"SECRET_ACCESS_KEY=") && c.unset != "" {
				continue
			}
			e = append(e, kv)
		}
		if c.set != "" {
			e = append(e, c.set)
		}
		r := e2e.RunDit(t, e, "offload", "--name", "day01", "-d", "rclone:ditcloud:shots/show", card)
		require.Equal(t, 2, r.Code, "%s\n%s%s", c.name, r.Stdout, r.Stderr)
		require.True(t, strings.HasPrefix(r.Stderr, `dit: cloud destination rclone:ditcloud:shots/show: the storage refused the credentials of the remote "ditcloud"`), "%s: %s", c.name, r.Stderr)
		require.Contains(t, r.Stderr, c.msg, c.name)
		require.Contains(t, r.Stderr, "check its access key and secret", c.name)
	}
	r := e2e.RunDit(t, env, "jobs")
	require.Contains(t, r.Stderr, "no catalog at", "no job recorded, and no catalog created: %s", r.Stdout)
	held, err := os.ReadDir(filepath.Join(s.Dir, "shots"))
	require.NoError(t, err)
	require.Empty(t, held, "nothing sent")

	// rclone serve s3 answers 500 InternalError at times when several
	// uploads create one new folder at once (s3test's doc), which no
	// real storage does: the folders are there first, as S3 needs none.
	premakeFolders(t, card, filepath.Join(s.Dir, "shots", "show", "day01", "A001"))
	r = e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:shots/show", card)
	require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.FileExists(t, filepath.Join(s.Dir, "shots", "show", "day01", "A001", "ascmhl", "ascmhl_chain.xml"))
}

// premakeFolders makes under to each folder of the card's, and ascmhl.
func premakeFolders(t *testing.T, card, to string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(to, "ascmhl"), 0o755))
	require.NoError(t, filepath.WalkDir(card, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(card, p)
		if err != nil {
			return err
		}
		return os.MkdirAll(filepath.Join(to, rel), 0o755)
	}))
}

// Keys that may read the bucket but not write to it (rclone serve s3
// --read-only): refused before the first byte, exit 2, naming the
// destination and what to do; alone or as a cascade's second copy, no
// job is recorded, nothing is copied to the folder, and the bucket holds
// nothing. dit verify's check reads only: it needs no write.
func TestOffloadRefusesABucketItCannotWrite(t *testing.T) {
	t.Parallel()
	s, env, dir, card := setupOn(t, s3test.StartReadOnly(t, "ditcloud", "shots"), "2MB", "mixed")
	raid := filepath.Join(dir, "raid")
	for _, args := range [][]string{
		{"-d", "rclone:ditcloud:shots/show"},
		{"-d", raid, "--then", "rclone:ditcloud:shots/show"},
	} {
		r := e2e.RunDit(t, env, append(append([]string{"offload", "--name", "day01"}, args...), card)...)
		require.Equal(t, 2, r.Code, "%v\n%s%s", args, r.Stdout, r.Stderr)
		require.True(t, strings.HasPrefix(r.Stderr, `dit: cloud destination rclone:ditcloud:shots/show: rclone can read it but cannot write there: `+
			`check that the remote "ditcloud" may write to it (its keys' permissions, a read-only storage or mount); nothing was sent (InternalError: `), "%v: %s", args, r.Stderr)
	}
	r := e2e.RunDit(t, env, "jobs")
	require.Contains(t, r.Stderr, "no catalog at", "no job recorded, and no catalog created: %s", r.Stdout)
	for _, d := range []string{raid, filepath.Join(s.Dir, "shots")} {
		held, err := os.ReadDir(d)
		require.NoError(t, err)
		require.Empty(t, held, "nothing copied to %s", d)
	}
}
