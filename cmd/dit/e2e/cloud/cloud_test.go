//go:build unix

package cloud

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// setup gives the test a bucket of its own on the package's S3 server
// and generates the cards.
func setup(t *testing.T, size, style string) (s *s3test.Server, bk string, env []string, dir, card string) {
	t.Helper()
	s, bk = bucket(t)
	_, env, dir, card = setupOn(t, s, size, style)
	return s, bk, env, dir, card
}

// setupOn is setup on the server s.
func setupOn(t *testing.T, s *s3test.Server, size, style string) (_ *s3test.Server, env []string, dir, card string) {
	t.Helper()
	dir = t.TempDir()
	env = append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	r := e2e.RunDit(t, env, "testdata", "cards", "--out", filepath.Join(dir, "cards"), "--cards", "1", "--size", size, "--style", style)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "raid"), 0o755))
	return s, env, dir, filepath.Join(dir, "cards", "A001")
}

type summary struct {
	JobID int64    `json:"job_id"`
	State string   `json:"state"`
	Then  []string `json:"then"`
	Cards []struct {
		Label        string `json:"label"`
		SafeToFormat bool   `json:"safe_to_format"`
		CardFree     bool   `json:"card_free"`
		Verdict      string `json:"verdict"`
	} `json:"cards"`
}

func lastSummary(t *testing.T, out string) summary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var s summary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &s), e2e.Tail(out))
	return s
}

// A card cascaded to the cloud: free once on the folder, safe to format
// once every object is verified by the storage's MD5; the folder
// downloaded from the bucket (rclone copy) carries the card's ASC MHL
// history, which the ASC reference tool verifies.
func TestCascadeToCloudHistoryVerifies(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, card := setup(t, "30MB", "mixed")
	bin := e2e.ReferenceTool(t)
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.Equal(t, []string{"rclone:ditcloud:" + bk + "/show"}, sum.Then)
	require.True(t, sum.Cards[0].CardFree)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)

	show := e2e.RunDit(t, env, "job", "show", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, "-> rclone:ditcloud:"+bk+"/show/day01/A001/")
	require.Contains(t, show.Stdout, "verified by the storage's own md5 (S3 ETag)")

	require.Contains(t, r.Stdout, "an object store keeps no empty folders: MISC/EMPTY_DIR will not be in the cloud copy")

	dl := filepath.Join(dir, "download", "A001")
	s.Rclone(t, "copy", "ditcloud:"+bk+"/show/day01/A001", dl)
	// S3 holds no empty folder: the one dit named is made by hand, as
	// its warning says.
	require.NoError(t, os.MkdirAll(filepath.Join(dl, "MISC", "EMPTY_DIR"), 0o755))
	_, err := os.Stat(filepath.Join(dl, "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err, "the card's history went up with its files")
	ref := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", dl)
	require.Equal(t, 0, ref.Code, ref.Out)
	// The cloud copy's history is the first copy's with one generation
	// more: the cloud hop, each file verified against the earlier record.
	first, cloudMHL := manifests(t, filepath.Join(dir, "raid", "day01", "A001")), manifests(t, dl)
	require.Len(t, cloudMHL, len(first)+1)
	require.Equal(t, first, cloudMHL[:len(first)])
	last, err := os.ReadFile(filepath.Join(dl, "ascmhl", cloudMHL[len(first)]))
	require.NoError(t, err)
	require.Contains(t, string(last), " to rclone:ditcloud:"+bk+"/show/day01/A001;")
	require.Contains(t, string(last), `<md5 action="verified"`)
	require.NotContains(t, string(last), `action="original"`)
}

// An object overwritten on the server after the job (other bytes, through
// the S3 API) is found by dit verify of the job: named, failed, exit 3,
// and the card is no longer safe to format. The job's -d rclone: went to
// its second run, uploaded from the verified folder copy.
func TestVerifyFindsObjectChangedOnServer(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, card := setup(t, "10MB", "clips")
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", filepath.Join(dir, "raid"), "-d", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.Equal(t, []string{"rclone:ditcloud:" + bk + "/show"}, sum.Then)

	v := e2e.RunDit(t, env, "verify", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)

	objs := s.Rclone(t, "lsf", "-R", "--files-only", "ditcloud:"+bk+"/show/day01/A001/CLIPS")
	victim := strings.Fields(objs)[0]
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("not the card's bytes"), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:"+bk+"/show/day01/A001/CLIPS/"+victim, "--ignore-times")

	v = e2e.RunDit(t, env, "verify", e2e.Itoa(sum.JobID))
	require.Equal(t, 3, v.Code, "%s\n%s", v.Stdout, v.Stderr)
	require.Contains(t, v.Stdout, "failed rclone:ditcloud:"+bk+"/show/day01/A001/CLIPS/"+victim)
	show := e2e.RunDit(t, env, "job", "show", e2e.Itoa(sum.JobID), "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var after summary
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &after))
	require.False(t, after.Cards[0].SafeToFormat, after.Cards[0].Verdict)
}

// progress is the part of a progress event this test reads.
type progress struct {
	Type     string `json:"type"`
	JobID    int64  `json:"job_id"`
	Progress struct {
		Cards []struct {
			Hop         int   `json:"hop"`
			Bytes       int64 `json:"bytes"`
			BytesCopied int64 `json:"bytes_copied"`
		} `json:"cards"`
	} `json:"progress"`
}

// secondRun is the upload's bytes to send and sent in a progress event.
func (p progress) secondRun() (total, sent int64, ok bool) {
	for _, c := range p.Progress.Cards {
		if c.Hop == 2 {
			return c.Bytes, c.BytesCopied, true
		}
	}
	return 0, 0, false
}

// kill -9 at about 80 % of an upload of many files (reported 75 %: the
// remote holds a little more by the time the kill lands), then --resume: what
// the remote holds and verifies is not sent again (under 40 % of the card
// is sent after the resume), and the card ends safe to format.
func TestKilledUploadResumes(t *testing.T) {
	t.Parallel()
	// A server of its own: rclonesOf tells the job's rclone by the
	// server's address.
	s, env, dir, card := setupOn(t, s3test.Start(t, "ditcloud", "shots"), "60MB", "dng")
	bk := "shots"
	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day01", "--cloud-bwlimit", "6M",
		"-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:"+bk+"/show", card)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var jobID, total int64
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev progress
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		jobID = ev.JobID
		if tot, sent, ok := ev.secondRun(); ok && ev.Type == "progress" && tot > 0 && sent*4 >= tot*3 {
			total = tot
			break
		}
	}
	require.NotZero(t, total, "the upload must report 75 %% sent before the kill")
	running := rclonesOf(t, s)
	require.Len(t, running, 1, "one rclone, the job's rclone rcd, sends: %v", running)
	sender := " rcd "
	if os.Getenv("DIT_RCLONE_DAEMON") == "0" {
		sender = " copy " // the process path, where there is no daemon
	}
	for _, cmdline := range running {
		require.Contains(t, cmdline, sender)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	// The kernel kills the job's rclone with it: nothing goes on
	// uploading behind a job that is not running.
	// No deadline of its own (the package's -timeout ends a hang); it
	// says what still runs every 10 s.
	for said := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		left := rclonesOf(t, s)
		if len(left) == 0 {
			break
		}
		if time.Since(said) >= 10*time.Second {
			said = time.Now()
			t.Logf("rclone still running after dit was killed: %v", left)
		}
	}

	before := listed(t, s, bk)
	var heldBytes int64
	for _, o := range before {
		heldBytes += o.Size
	}
	require.Greater(t, heldBytes, total/2, "the remote holds most of the card before the resume")
	require.Less(t, heldBytes, total, "the kill came before the end of the upload")

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", e2e.Itoa(jobID))
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	// Sent after the resume, as the server saw it: the objects that are
	// new, or written again (another time of writing, another ETag);
	// and as dit reported it, in its progress events.
	var sent, reported int64
	for key, o := range listed(t, s, bk) {
		if b, ok := before[key]; !ok || b.ModTime != o.ModTime || b.ETag != o.ETag {
			sent += o.Size
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var ev progress
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == "progress" {
			if _, n, ok := ev.secondRun(); ok {
				reported = max(reported, n)
			}
		}
	}
	require.GreaterOrEqual(t, sent, total-heldBytes-(1<<20), "what the remote lacked was sent")
	sent = max(sent, reported)
	t.Logf("card %d bytes, held before the resume %d (%.0f %%), sent after it %d (%.0f %%)", total, heldBytes, 100*float64(heldBytes)/float64(total), sent, 100*float64(sent)/float64(total))
	require.Less(t, sent*100, total*40, "sent after the resume: %d of %d", sent, total)
	sum := lastSummary(t, res.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	v := e2e.RunDit(t, env, "verify", e2e.Itoa(jobID))
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)
}

// rclonesOf are the rclone processes running against the server s (its
// endpoint in their environment), by process id: their command lines.
func rclonesOf(t *testing.T, s *s3test.Server) map[int]string {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	out := map[int]string{}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("_ENDPOINT="+s.URL+"\x00")) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || filepath.Base(string(bytes.Split(cmdline, []byte{0})[0])) != "rclone" {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // exited, not yet reaped
		}
		out[pid] = string(bytes.ReplaceAll(cmdline, []byte{0}, []byte(" ")))
	}
	return out
}

// object is an object as the server lists it.
type object struct {
	Size    int64
	ModTime string // the server's time of writing
	ETag    string
}

// listed lists the card's folder in the bucket bk with the server's
// times of writing (--use-server-modtime) and ETags (rclone's md5 of a
// single-part object).
func listed(t *testing.T, s *s3test.Server, bk string) map[string]object {
	t.Helper()
	return listedAt(t, s, "ditcloud:"+bk+"/show/day01/A001")
}

// listedAt is listed for the folder remote.
func listedAt(t *testing.T, s *s3test.Server, remote string) map[string]object {
	t.Helper()
	out := s.Rclone(t, "lsjson", "-R", "--files-only", "--hash", "--use-server-modtime", remote)
	var items []struct {
		Path    string
		Size    int64
		ModTime string
		Hashes  map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &items))
	m := map[string]object{}
	for _, it := range items {
		m[it.Path] = object{it.Size, it.ModTime, it.Hashes["md5"]}
	}
	return m
}

// A card whose only destination is a cloud one is streamed from its one
// read: safe to format once every object's server-side MD5 equals that
// read's and its ASC MHL history is there, and the bucket holds the
// card's bytes.
func TestCardStreamedToCloud(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, card := setup(t, "20MB", "clips")
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/direct", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	// S3 reports no free space: said before the job, which goes on.
	require.Contains(t, r.Stderr, "dit: note: free space of ditcloud: unknown (the storage does not report it)\n")
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	show := e2e.RunDit(t, env, "job", "show", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, "verified by the storage's own md5 (S3 ETag)")
	require.Contains(t, show.Stdout, "-> rclone:ditcloud:"+bk+"/direct/day01/A001: 17 verified")
	dl := filepath.Join(dir, "download")
	s.Rclone(t, "copy", "ditcloud:"+bk+"/direct/day01/A001", dl)
	got, want := e2e.Tree(t, dl), e2e.Tree(t, card)
	require.Len(t, got, 17+2, "the card's files, and its new ASC MHL history (a manifest and the chain)")
	for rel, h := range got {
		if strings.HasPrefix(rel, "ascmhl/") {
			continue
		}
		require.Equal(t, want[rel], h, "%s in the bucket is the card's", rel)
	}
}
