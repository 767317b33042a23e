//go:build unix

package proxies

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

const (
	cloudDest  = "rclone:ditcloud:shots/show"
	cloudFiles = "ditcloud:shots/show/proxies/day01/A001"
)

// cloudRig is a card of real clips, a folder destination, the S3 server
// (moto on 127.0.0.1) and dit's environment for it.
type cloudRig struct {
	s                *s3test.Server
	env              []string
	dir, card, raid  string
	tmp              string // dit's TMPDIR
	placedName, body string // an object on the server before the job
}

func newCloudRig(t *testing.T) *cloudRig {
	dir := t.TempDir()
	card := makeCard(t, dir) // skips without ffmpeg
	s := s3test.Start(t, "ditcloud", "shots")
	g := &cloudRig{s: s, dir: dir, card: card, raid: filepath.Join(dir, "raid"), tmp: filepath.Join(dir, "tmp")}
	require.NoError(t, os.Mkdir(g.raid, 0o755))
	require.NoError(t, os.Mkdir(g.tmp, 0o755))
	g.env = append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db"), "TMPDIR="+g.tmp), s.Env...)
	// Someone's object at the name of a clip's proxy: dit never writes
	// over it.
	g.placedName, g.body = "A001C002_230512_R2EC.mp4", "an editor's own file, not dit's"
	other := e2e.WriteFile(t, filepath.Join(dir, "other.mp4"), g.body)
	s.Rclone(t, "copyto", other, cloudFiles+"/"+g.placedName)
	return g
}

type cloudShown struct {
	Proxies []struct {
		Card, Clip, Preset, State, Source, Dest, Path, Error string
		TCStart                                              string `json:"tc_start"`
		VerifiedBy                                           string `json:"verified_by"`
		Size                                                 int64
		Hashes                                               map[string]string
	}
}

// listed is an object rclone lsjson lists in the card's proxies folder.
type listed struct {
	Path   string
	Size   int64
	Hashes map[string]string
}

func (g *cloudRig) list(t *testing.T) map[string]listed {
	var ls []listed
	require.NoError(t, json.Unmarshal([]byte(g.s.Rclone(t, "lsjson", "-R", "--files-only", "--hash", cloudFiles)), &ls))
	m := map[string]listed{}
	for _, o := range ls {
		m[o.Path] = o
	}
	return m
}

// A job to a folder and, cascaded, to S3, with --proxies h264 to both:
// each proxy is made once from the verified folder copy, and uploaded to
// proxies/day01/A001 in the bucket, verified by the storage's own MD5.
// Downloaded, each is playable with the source's timecode, and its MD5
// is the catalog's. An object at a proxy's name before the job is left
// as it was: that proxy is "CLIP (2).mp4". The clip ffmpeg cannot read
// is a recorded failure; the card is safe to format.
func TestProxiesToCloud(t *testing.T) {
	t.Parallel()
	g := newCloudRig(t)
	r := e2e.RunDit(t, g.env, "offload", "--json", "--name", "day01", "--proxies", "h264",
		"--proxies-to", cloudDest, "--proxies-to", g.raid, "-d", g.raid, "--then", cloudDest, g.card)
	require.Equal(t, 0, r.Code, r.Stderr+e2e.Tail(r.Stdout))
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)

	show := e2e.RunDit(t, g.env, "job", "show", e2e.Itoa(sum.JobID), "--proxies", "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var s cloudShown
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s), show.Stdout)
	held := g.list(t)
	inCloud := 0
	for _, c := range srcClips {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file))
		src := ffprobe(t, filepath.Join(g.card, c.file))
		want := name + ".mp4"
		if want == g.placedName {
			want = name + " (2).mp4"
		}
		var local, remote string
		for _, p := range s.Proxies {
			if p.Clip != name {
				continue
			}
			require.Equal(t, "made", p.State, "%s on %s: %s", name, p.Dest, p.Error)
			switch p.Dest {
			case g.raid:
				require.Equal(t, name+".mp4", filepath.Base(p.Path))
				local = p.Hashes["md5"]
				require.Equal(t, md5File(t, p.Path), local)
			case cloudDest:
				require.Equal(t, cloudDest+"/proxies/day01/A001/"+want, p.Path)
				require.Equal(t, "the storage's own md5 (S3 ETag)", p.VerifiedBy)
				o, ok := held[want]
				require.True(t, ok, "%s is in the bucket: %v", want, held)
				require.Equal(t, p.Size, o.Size)
				require.Equal(t, p.Hashes["md5"], o.Hashes["md5"])
				dl := filepath.Join(g.dir, "download", want)
				g.s.Rclone(t, "copyto", cloudFiles+"/"+want, dl)
				require.Equal(t, p.Hashes["md5"], md5File(t, dl), "the catalog's md5 is the object's")
				got := ffprobe(t, dl)
				require.Equal(t, src.tc, got.tc, "%s keeps the source's timecode", name)
				require.Equal(t, src.tc, p.TCStart)
				remote = p.Hashes["md5"]
				inCloud++
			default:
				t.Fatalf("%s: a proxy on %s, not a destination it was asked for", name, p.Dest)
			}
			require.NotContains(t, p.Source, filepath.Join("cards", "A001"), "never read from the card")
		}
		require.NotEmpty(t, local, name)
		require.Equal(t, local, remote, "%s: the proxy uploaded is the one made", name)
	}
	require.Equal(t, len(srcClips), inCloud)
	require.Len(t, held, len(srcClips)+1, "the proxies and the object that was there")
	require.Equal(t, g.body, g.s.Rclone(t, "cat", cloudFiles+"/"+g.placedName), "the object that was there is untouched")
	var failed []string
	for _, p := range s.Proxies {
		if p.State == "failed" {
			failed = append(failed, p.Clip)
		}
	}
	require.Equal(t, []string{"A001C005_230512_R2EC"}, failed, "the unreadable clip, once (made nowhere)")
	require.Empty(t, dirNames(t, g.tmp), "no staging folder left")
	checkSheet(t, g, sum.JobID, len(s.Proxies))
}

// checkSheet reads the proxies sheet written with the job's reports on
// the folder destination: a row per proxy of dit job show, the cloud
// ones verified by the storage's md5, with the object's md5; dit report
// --format proxies writes the same bytes.
func checkSheet(t *testing.T, g *cloudRig, job int64, n int) {
	t.Helper()
	name := "dit-report_job" + e2e.Itoa(job) + "_day01_proxies.csv"
	body, err := os.ReadFile(filepath.Join(g.raid, "day01", "reports", name))
	require.NoError(t, err, "the proxies sheet is one of the job's reports")
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+n)
	col := func(h string) int { return slices.Index(rows[0], h) }
	held := g.list(t)
	cloudRows := 0
	for _, r := range rows[1:] {
		if r[col("destination")] != cloudDest || r[col("state")] != "made" {
			continue
		}
		cloudRows++
		require.Equal(t, "s3-etag:md5", r[col("verified_by")])
		o := held[path.Base(r[col("path")])]
		require.Equal(t, o.Hashes["md5"], r[col("md5")], r[col("path")])
		require.Equal(t, strconv.FormatInt(o.Size, 10), r[col("size_bytes")])
	}
	require.Equal(t, len(srcClips), cloudRows)
	rep := e2e.RunDit(t, g.env, "report", e2e.Itoa(job), "--format", "proxies")
	require.Equal(t, 0, rep.Code, rep.Stderr)
	require.Equal(t, string(body), rep.Stdout)
}

// --proxies-to a cloud destination alone: the proxies are staged in a
// temporary folder (removed after), not in the folder destination, and
// uploaded; the footage's cloud copy is beside them.
func TestProxiesToCloudOnly(t *testing.T) {
	t.Parallel()
	g := newCloudRig(t)
	// A cloud destination that is not one of the job's is refused.
	bad := e2e.RunDit(t, g.env, "offload", "--name", "day01", "--proxies", "h264", "--proxies-to", "rclone:ditcloud:shots/other",
		"-d", g.raid, "--then", cloudDest, g.card)
	require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
	require.Contains(t, bad.Stderr, "--proxies-to rclone:ditcloud:shots/other is not a destination (-d or --then) of the job: give one of "+g.raid+", "+cloudDest)
	r := e2e.RunDit(t, g.env, "offload", "--json", "--name", "day01", "--proxies", "h264,burnin",
		"--proxies-to", cloudDest+"/", "-d", g.raid, "--then", cloudDest, g.card)
	require.Equal(t, 0, r.Code, r.Stderr+e2e.Tail(r.Stdout))
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)
	require.NoDirExists(t, filepath.Join(g.raid, "proxies"), "not asked for on the folder")
	require.Empty(t, dirNames(t, g.tmp), "the staging folder is removed")
	held := g.list(t)
	for _, c := range srcClips {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file))
		want := name + ".mp4"
		if want == g.placedName {
			want = name + " (2).mp4"
		}
		require.Contains(t, held, want)
	}
	// The card's own files went up too, beside the proxies folder.
	top := g.s.Rclone(t, "lsf", "ditcloud:shots/show")
	require.ElementsMatch(t, []string{"day01/", "proxies/"}, strings.Fields(top))
	show := e2e.RunDit(t, g.env, "job", "show", e2e.Itoa(sum.JobID), "--proxies")
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, path.Join(cloudDest, "proxies/day01/A001", "A001C001_230512_R2EC.mp4"))
}

func dirNames(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// serverTimes are the objects of the card's proxies folder with the
// time the server stored each (S3's LastModified) and its md5.
func (g *cloudRig) serverTimes(t *testing.T) map[string]string {
	var ls []struct {
		Path, ModTime string
		Hashes        map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(g.s.Rclone(t, "lsjson", "-R", "--files-only", "--hash", "--use-server-modtime", cloudFiles)), &ls))
	m := map[string]string{}
	for _, o := range ls {
		m[o.Path] = o.ModTime + " " + o.Hashes["md5"]
	}
	return m
}

func (g *cloudRig) shown(t *testing.T, job int64) cloudShown {
	show := e2e.RunDit(t, g.env, "job", "show", e2e.Itoa(job), "--proxies", "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var s cloudShown
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s), show.Stdout)
	return s
}

// A job killed (kill -9) once its second proxy is on the remote and
// verified, before the catalog recorded it, its first clip's proxies
// recorded on both destinations: the resume sends neither again. The
// objects there before keep their server time and MD5, the one not
// recorded is taken as it is (the same bytes, found by the storage's
// MD5: no "(2)" of it), and the other clips' proxies go up: one object
// per clip, one row per clip and destination.
func TestResumeDoesNotResendCloudProxies(t *testing.T) {
	t.Parallel()
	g := newCloudRig(t)
	extra := append([]string{"TMPDIR=" + g.tmp, "DIT_CRASH_AT=proxy: uploaded#2"}, g.s.Env...)
	r, killed := e2e.DitCrash(t, filepath.Join(g.dir, "catalog.db"), extra, "offload", "--json", "--name", "day01", "--proxies", "h264",
		"--proxies-to", g.raid, "--proxies-to", cloudDest, "-d", g.raid, "--then", cloudDest, g.card)
	require.True(t, killed, "killed at its second proxy uploaded: %d\n%s", r.Code, e2e.Tail(r.Stdout+r.Stderr))
	before := g.serverTimes(t)
	require.Len(t, before, 3, "two proxies and the object that was there: %v", before)
	recorded := 0
	for _, p := range g.shown(t, 1).Proxies {
		if p.Dest == cloudDest {
			recorded++
		}
	}
	require.Equal(t, 1, recorded, "the second upload was not recorded before the kill")

	r = e2e.RunDit(t, g.env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, r.Code, r.Stderr+e2e.Tail(r.Stdout))
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)
	after := g.serverTimes(t)
	for k, v := range before {
		require.Equal(t, v, after[k], "%s is not sent again", k)
	}
	require.Len(t, after, len(srcClips)+1, "one object per clip: %v", after)
	rows := map[string]int{}
	for _, p := range g.shown(t, 1).Proxies {
		if p.State != "made" {
			continue
		}
		rows[p.Clip+" on "+p.Dest]++
		if p.Dest == cloudDest {
			require.Equal(t, "the storage's own md5 (S3 ETag)", p.VerifiedBy)
			rel := strings.TrimPrefix(p.Path, cloudDest+"/proxies/day01/A001/")
			require.Contains(t, after, rel)
			require.True(t, strings.HasSuffix(after[rel], " "+p.Hashes["md5"]), "%s: the catalog's md5 is the object's", rel)
		}
	}
	for _, c := range srcClips {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file))
		require.Equal(t, 1, rows[name+" on "+cloudDest], name)
		require.Equal(t, 1, rows[name+" on "+g.raid], name)
	}
}

// The job's proxies go with it to the production's PostgreSQL catalog
// (dit catalog sync, the push): dit job show --proxies there lists the
// same proxies as on the cart, the cloud ones with how they were
// verified; pushed twice, they are there once.
func TestProxiesPushedToPostgres(t *testing.T) {
	t.Parallel()
	g := newCloudRig(t)
	pg := pgtest.ForTest(t) // skips, saying why, without PostgreSQL
	shared, err := pg.NewDatabase("production")
	require.NoError(t, err)
	r := e2e.RunDit(t, g.env, "offload", "--json", "--name", "day01", "--proxies", "h264",
		"--proxies-to", cloudDest, "--proxies-to", g.raid, "-d", g.raid, "--then", cloudDest, g.card)
	require.Equal(t, 0, r.Code, r.Stderr+e2e.Tail(r.Stdout))
	cart := g.shown(t, 1)
	require.Len(t, cart.Proxies, 2*len(srcClips)+1)
	for range 2 {
		r = e2e.RunDit(t, g.env, "catalog", "sync", "--to", shared, "--json")
		require.Equal(t, 0, r.Code, r.Stderr)
	}
	var pushed []catalog.PushResult
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &pushed))
	require.Len(t, pushed, 1)
	there := e2e.RunDit(t, append(slices.Clone(g.env), "DIT_DB="+shared), "job", "show", e2e.Itoa(pushed[0].ID), "--proxies", "--json")
	require.Equal(t, 0, there.Code, there.Stderr)
	var s cloudShown
	require.NoError(t, json.Unmarshal([]byte(there.Stdout), &s), there.Stdout)
	require.Equal(t, cart.Proxies, s.Proxies, "the same proxies, once")
	n := 0
	for _, p := range s.Proxies {
		if p.Dest == cloudDest && p.State == "made" {
			require.Equal(t, "the storage's own md5 (S3 ETag)", p.VerifiedBy)
			n++
		}
	}
	require.Equal(t, len(srcClips), n)
}
