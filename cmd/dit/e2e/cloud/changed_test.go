//go:build unix

package cloud

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// failures are the failure lines of the cards of a JSON summary.
func failures(t *testing.T, doc string) []string {
	t.Helper()
	var s struct {
		Cards []struct {
			Failures []struct{ Path, Error string } `json:"failures"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(doc), &s), e2e.Tail(doc))
	var fs []string
	for _, c := range s.Cards {
		for _, f := range c.Failures {
			fs = append(fs, f.Path+": "+f.Error)
		}
	}
	return fs
}

// cloudSafe offloads a card (no history of its own) to the cloud alone:
// job 1, safe to format.
func cloudSafe(t *testing.T) (s *s3test.Server, bk string, env []string, dir, card string) {
	t.Helper()
	s, bk = bucket(t)
	dir = t.TempDir()
	env = append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card = handCard(t, dir)
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "HV", "-d", "rclone:ditcloud:"+bk+"/hv", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.True(t, lastSummary(t, r.Stdout).Cards[0].SafeToFormat)
	nextSecond()
	return s, bk, env, dir, card
}

// nextSecond returns once the clock is in a second after the one it is
// in: a history generation's name is its card's and its time to the
// second (0001_A001_2026-12-04_123112Z.mhl), so a job run next to the
// same folder within that second would name its first generation as the
// last job's (no two jobs of a card run so close but in a test: a job
// takes 0.3 s here).
func nextSecond() {
	now := time.Now().Truncate(time.Second)
	for time.Now().Truncate(time.Second).Equal(now) {
		time.Sleep(5 * time.Millisecond)
	}
}

// hvCard is the card's folder in the bucket bk.
func hvCard(bk string) string { return "ditcloud:" + bk + "/hv/HV/A001" }

// requireHistoryChanged runs dit verify 1 and checks that it fails for
// the card's cloud history, and that the card is recorded NOT safe to
// format with the reason (job show, the JSON summary of job show).
func requireHistoryChanged(t *testing.T, env []string, what string) {
	t.Helper()
	v := e2e.RunDit(t, env, "verify", "1")
	require.Equal(t, 3, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
	require.Contains(t, v.Stdout, what)
	show := e2e.RunDit(t, env, "job", "show", "1")
	require.Contains(t, show.Stdout, "NOT safe to format", show.Stdout)
	require.Contains(t, show.Stdout, "dit verify found the card's ASC MHL history in the cloud changed: ", show.Stdout)
	require.Contains(t, show.Stdout, what, show.Stdout)
	js := e2e.RunDit(t, env, "job", "show", "--json", "1")
	require.Equal(t, 0, js.Code, js.Stderr)
	require.Contains(t, strings.Join(failures(t, js.Stdout), "\n"), "(hash lists): hash lists not written: dit verify found the card's ASC MHL history in the cloud changed: ")
	jobs := e2e.RunDit(t, env, "jobs")
	require.Regexp(t, `A001: [^\n]*hash lists not written: NOT safe`, jobs.Stdout, "the model's verdict words")
	html := e2e.RunDit(t, env, "report", "1", "--format", "html")
	require.Equal(t, 0, html.Code, html.Stderr)
	require.Contains(t, html.Stdout, "ASC MHL history in the cloud changed: ")
	require.Contains(t, html.Stdout, what)
}

// A cloud history deleted after the card was safe: dit verify fails and
// the card is NOT safe to format, with the reason; a resume writes the
// history again (its names are free), which verifies after a download
// (dit mhl verify, the ASC reference tool), and the card is safe again.
func TestVerifiedHistoryDeletedResumeWritesIt(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, _ := cloudSafe(t)
	s.Rclone(t, "purge", hvCard(bk)+"/ascmhl")
	requireHistoryChanged(t, env, hvCard(bk)+"/ascmhl/ascmhl_chain.xml is gone from the remote")

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.True(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat, lastSummary(t, res.Stdout).Cards[0].Verdict)
	require.NotContains(t, res.Stdout+res.Stderr, "nothing to do")
	require.Contains(t, listedAt(t, s, hvCard(bk)), "ascmhl/ascmhl_chain.xml")
	dl := verifyDownloaded(t, s, e2e.ReferenceTool(t), hvCard(bk), filepath.Join(dir, "download", "A001"))
	mv := e2e.RunDit(t, env, "mhl", "verify", dl)
	require.Equal(t, 0, mv.Code, "%s\n%s", mv.Stdout, mv.Stderr)
	v := e2e.RunDit(t, env, "verify", "1")
	require.Equal(t, 0, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
}

// A manifest of the cloud history overwritten: dit verify fails; the
// resume never replaces it: it fails naming it and saying to move the
// whole ascmhl/ folder aside, the card stays NOT safe, and dit verify
// still fails (again and again). Once the folder is moved aside, the
// resume writes the history and the card is safe.
func TestVerifiedHistoryOverwrittenStaysFailed(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, _ := cloudSafe(t)
	objs := listedAt(t, s, hvCard(bk))
	var mhl string
	for key := range objs {
		if strings.HasPrefix(key, "ascmhl/") && strings.HasSuffix(key, ".mhl") {
			mhl = key
		}
	}
	require.NotEmpty(t, mhl)
	junk := filepath.Join(dir, "junk.mhl")
	require.NoError(t, os.WriteFile(junk, []byte("garbage\n"), 0o644))
	s.Rclone(t, "copyto", junk, hvCard(bk)+"/"+mhl)
	requireHistoryChanged(t, env, mhl+" differs from what its chain records")

	before := listedAt(t, s, hvCard(bk))
	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 3, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	sum := lastSummary(t, res.Stdout)
	require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.Contains(t, res.Stdout, "rclone:"+hvCard(bk)+"/"+mhl+" is there and differs from the history dit wrote for this card")
	require.Contains(t, res.Stdout, "move the card's whole ascmhl/ folder there aside")
	require.Contains(t, sum.Cards[0].Verdict, "move the card's whole ascmhl/ folder in the cloud aside, then resume job 1")
	require.Contains(t, res.Stderr, "move that whole folder aside first")
	require.Equal(t, before, listedAt(t, s, hvCard(bk)), "nothing on the remote changed")
	for range 2 {
		v := e2e.RunDit(t, env, "verify", "1")
		require.Equal(t, 3, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
		require.NotContains(t, v.Stdout, " 0 differ")
	}

	s.Rclone(t, "moveto", hvCard(bk)+"/ascmhl", "ditcloud:"+bk+"/aside/ascmhl")
	res = e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.True(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat)
	dl := filepath.Join(dir, "download", "A001")
	s.Rclone(t, "copy", hvCard(bk), dl)
	mv := e2e.RunDit(t, env, "mhl", "verify", dl)
	require.Equal(t, 0, mv.Code, "%s\n%s", mv.Stdout, mv.Stderr)
	v := e2e.RunDit(t, env, "verify", "1")
	require.Equal(t, 0, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
}

// A card offloaded again to the same cloud folder by another job after a
// clip was added: the history there (job 1's) is not replaced, and the
// message says to move the whole ascmhl/ folder aside. Moving only the
// chain away leaves job 1's manifest: the resume refuses before anything
// is sent; once the folder is moved aside, it writes the history, which
// verifies after a download.
func TestLeftoverManifestRefused(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, card := cloudSafe(t)
	require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", "A001C002.mov"), []byte("another clip"), 0o644))
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "HV", "-d", "rclone:ditcloud:"+bk+"/hv", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Contains(t, r.Stdout, "ascmhl/ascmhl_chain.xml is there and differs from the history dit wrote for this card")
	require.Contains(t, r.Stdout, "move the card's whole ascmhl/ folder there aside")

	s.Rclone(t, "moveto", hvCard(bk)+"/ascmhl/ascmhl_chain.xml", "ditcloud:"+bk+"/aside/ascmhl_chain.xml")
	before := listedAt(t, s, "ditcloud:"+bk)
	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "2")
	require.Equal(t, 3, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.False(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat)
	require.Contains(t, res.Stdout, "rclone:"+hvCard(bk)+"/ascmhl holds 1 file not in the history dit writes for this card")
	require.Contains(t, res.Stdout, "nothing of this card's history was sent")
	require.Contains(t, res.Stdout, "move the card's whole ascmhl/ folder there aside")
	require.Equal(t, before, listedAt(t, s, "ditcloud:"+bk), "nothing was sent")

	s.Rclone(t, "moveto", hvCard(bk)+"/ascmhl", "ditcloud:"+bk+"/aside/ascmhl")
	res = e2e.RunDit(t, env, "offload", "--json", "--resume", "2")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.True(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat)
	dl := filepath.Join(dir, "download", "A001")
	s.Rclone(t, "copy", hvCard(bk), dl)
	mv := e2e.RunDit(t, env, "mhl", "verify", dl)
	require.Equal(t, 0, mv.Code, "%s\n%s", mv.Stdout, mv.Stderr)
}

// The same in a cascade (a folder, then the cloud): the second run's
// cloud history deleted is written again by the resume; a manifest
// overwritten keeps the card NOT safe, and the resume says what to do
// (never "nothing to do").
func TestCascadeHistoryChanged(t *testing.T) {
	t.Parallel()
	for _, overwrite := range []bool{false, true} {
		t.Run(map[bool]string{false: "deleted", true: "overwritten"}[overwrite], func(t *testing.T) {
			t.Parallel()
			s, bk := bucket(t)
			dir := t.TempDir()
			env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
			card := handCard(t, dir)
			require.NoError(t, os.Mkdir(filepath.Join(dir, "raid"), 0o755))
			r := e2e.RunDit(t, env, "offload", "--json", "--name", "HV", "-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:"+bk+"/hv", card)
			require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
			if overwrite {
				// dit's own generation for the cloud hop: the newest
				// manifest (0002_...; 0001 is the first copy's, sent
				// with the footage as one of the card's files).
				var mhl string
				for key := range listedAt(t, s, hvCard(bk)) {
					if strings.HasPrefix(key, "ascmhl/") && strings.HasSuffix(key, ".mhl") && key > mhl {
						mhl = key
					}
				}
				require.Contains(t, mhl, "ascmhl/0002_", "the cloud hop's generation")
				junk := filepath.Join(dir, "junk.mhl")
				require.NoError(t, os.WriteFile(junk, []byte("garbage\n"), 0o644))
				s.Rclone(t, "copyto", junk, hvCard(bk)+"/"+mhl)
			} else {
				s.Rclone(t, "purge", hvCard(bk)+"/ascmhl")
			}
			v := e2e.RunDit(t, env, "verify", "1")
			require.Equal(t, 3, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
			res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
			require.NotContains(t, res.Stdout+res.Stderr, "nothing to do", "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
			sum := lastSummary(t, res.Stdout)
			if overwrite {
				require.Equal(t, 3, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
				require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
				require.Contains(t, res.Stderr, "move that whole folder aside first")
				v = e2e.RunDit(t, env, "verify", "1")
				require.Equal(t, 3, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
				return
			}
			require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
			require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
			dl := verifyDownloaded(t, s, e2e.ReferenceTool(t), hvCard(bk), filepath.Join(dir, "download", "A001"))
			mv := e2e.RunDit(t, env, "mhl", "verify", dl)
			require.Equal(t, 0, mv.Code, "%s\n%s", mv.Stdout, mv.Stderr)
			v = e2e.RunDit(t, env, "verify", "1")
			require.Equal(t, 0, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
		})
	}
}

// A card that carries its own ASC MHL history, streamed to the cloud
// alone (its chain's copy row is the history's chain): the history
// deleted after the card was safe fails dit verify, and the resume
// writes it again; the download verifies.
func TestVerifiedHistoryWithCardChainDeleted(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	c := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "create", "-h", "xxh64", card)
	require.Equal(t, 0, c.Code, c.Out)
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "HV", "-d", "rclone:ditcloud:"+bk+"/hv", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	s.Rclone(t, "purge", hvCard(bk)+"/ascmhl")
	v := e2e.RunDit(t, env, "verify", "1")
	require.Equal(t, 3, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.True(t, lastSummary(t, res.Stdout).Cards[0].SafeToFormat, lastSummary(t, res.Stdout).Cards[0].Verdict)
	dl := verifyDownloaded(t, s, bin, hvCard(bk), filepath.Join(dir, "download", "A001"))
	mv := e2e.RunDit(t, env, "mhl", "verify", dl)
	require.Equal(t, 0, mv.Code, "%s\n%s", mv.Stdout, mv.Stderr)
	v = e2e.RunDit(t, env, "verify", "1")
	require.Equal(t, 0, v.Code, "verify: %s\n%s", v.Stdout, v.Stderr)
}
