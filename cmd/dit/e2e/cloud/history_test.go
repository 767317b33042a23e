//go:build unix

package cloud

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// handCard writes a card A001 with sub-folders and Unicode names (an NFD
// "é", CJK) under dir.
func handCard(t *testing.T, dir string) string {
	t.Helper()
	card := filepath.Join(dir, "cards", "A001")
	files := map[string]int{
		"CLIPS/A001C001.mov":          3 << 20,
		"CLIPS/Sce\u0301ne 2.mov":     1 << 20, // NFD: e + combining acute
		"日本語/クリップ_01.mov":             700 << 10,
		"AUDIO/day 1/take-1.wav":      200 << 10,
		"AUDIO/day 1/deeper/notes.md": 37,
		"card.xml":                    0,
	}
	for rel, n := range files {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		b := make([]byte, n)
		rand.Read(b)
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	return card
}

// snapshot is every entry of a tree: its kind, size, time and (files)
// SHA-256, to prove a card was not written to.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	hashes := e2e.Tree(t, root)
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := d.Info()
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		out = append(out, fmt.Sprintf("%s %v %d %d %x", filepath.ToSlash(rel), fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), hashes[filepath.ToSlash(rel)]))
		return nil
	}))
	sort.Strings(out)
	return out
}

// verifyDownloaded downloads the card's folder from the bucket and runs
// the ASC reference tool's verify on it; it returns the download.
func verifyDownloaded(t *testing.T, s *s3test.Server, bin, remote, dl string) string {
	t.Helper()
	s.Rclone(t, "copy", remote, dl)
	ref := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", dl)
	require.Equal(t, 0, ref.Code, ref.Out)
	return dl
}

// manifests lists the ascmhl folder's manifests of a downloaded copy.
func manifests(t *testing.T, dl string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dl, "ascmhl"))
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".mhl") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A card streamed to the cloud alone gets its ASC MHL history there: a
// generation listing every file with the job's hashes of the card's one
// read, uploaded and verified like the footage. The folder downloaded
// from the bucket verifies with the ASC reference tool, Unicode names
// and sub-folders included, and the card was not written to.
func TestCardStreamedToCloudHistoryVerifies(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	before := snapshot(t, card)

	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "--author-name", "Jo DIT", "-d", "rclone:ditcloud:"+bk+"/direct", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.Equal(t, before, snapshot(t, card), "the card is as it was")

	dl := verifyDownloaded(t, s, bin, "ditcloud:"+bk+"/direct/day01/A001", filepath.Join(dir, "download", "A001"))
	ms := manifests(t, dl)
	require.Len(t, ms, 1)
	m, err := os.ReadFile(filepath.Join(dl, "ascmhl", ms[0]))
	require.NoError(t, err)
	for _, want := range []string{"<path", "Sce\u0301ne 2.mov", "日本語/クリップ_01.mov", "AUDIO/day 1/deeper/notes.md",
		"<md5 action=\"original\"", "<author>Jo DIT</author>", "<process>transfer</process>",
		"copied from " + card + " to rclone:ditcloud:" + bk + "/direct/day01/A001;"} {
		require.Contains(t, string(m), want)
	}
	// Every card file is in the bucket with the card's bytes.
	got, want := e2e.Tree(t, dl), e2e.Tree(t, card)
	for rel, h := range want {
		require.Equal(t, h, got[rel], rel)
	}
	// dit's own check of the downloaded history agrees.
	v := e2e.RunDit(t, env, "mhl", "verify", dl)
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)

	// The card offloaded again to the same folder by another job: the
	// history there already records every file with the card's hashes:
	// kept as it is (its chain is never replaced), nothing sent.
	there := listedAt(t, s, "ditcloud:"+bk+"/direct/day01/A001")
	r2 := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/direct", card)
	require.Equal(t, 0, r2.Code, "%s\n%s", r2.Stderr, e2e.Tail(r2.Stdout))
	require.True(t, lastSummary(t, r2.Stdout).Cards[0].SafeToFormat)
	require.Contains(t, r2.Stdout, "rclone:ditcloud:"+bk+"/direct/day01/A001/ascmhl holds an ASC MHL history already (an earlier job's) that records every file of the card with the card's hashes: kept as it is, no generation added for this job")
	require.Equal(t, there, listedAt(t, s, "ditcloud:"+bk+"/direct/day01/A001"), "nothing on the remote changed")
	require.Equal(t, before, snapshot(t, card), "the card is as it was")
}

// A card that carries its own ASC MHL history (here the reference tool's)
// streamed to the cloud: the history in the bucket is the card's chained
// with this job's generation, and verifies with the reference tool.
func TestCardWithHistoryStreamedToCloudChains(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	c := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "create", "-h", "xxh64", card)
	require.Equal(t, 0, c.Code, c.Out)
	cardMHL := manifests(t, card)
	require.Len(t, cardMHL, 1)
	before := snapshot(t, card)

	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/direct", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.Equal(t, before, snapshot(t, card), "the card is as it was")

	dl := verifyDownloaded(t, s, bin, "ditcloud:"+bk+"/direct/day01/A001", filepath.Join(dir, "download", "A001"))
	ms := manifests(t, dl)
	require.Len(t, ms, 2, "the card's generation, then dit's")
	require.Equal(t, cardMHL[0], ms[0])
	chain, err := os.ReadFile(filepath.Join(dl, "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err)
	require.Contains(t, string(chain), ms[0])
	require.Contains(t, string(chain), ms[1])
	m, err := os.ReadFile(filepath.Join(dl, "ascmhl", ms[1]))
	require.NoError(t, err)
	require.Contains(t, string(m), "<xxh64 action=\"verified\"", "the card's files are checked against its history")

	show := e2e.RunDit(t, env, "job", "show", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, "-> rclone:ditcloud:"+bk+"/direct/day01/A001/ascmhl/ascmhl_chain.xml  verified by the storage's own md5 (S3 ETag), as the chain of the card's ASC MHL history extended by dit\n")
	v := e2e.RunDit(t, env, "verify", e2e.Itoa(sum.JobID))
	require.Equal(t, 0, v.Code, "%s\n%s", v.Stdout, v.Stderr)
}

// kill -9 once the footage is verified in the cloud, before the history
// goes up (history staged) or while it does (its manifests up, not its
// chain), then --resume: the history is completed and verifies with the
// reference tool, and no object there before the resume was written
// again. The card carries the reference tool's history; streamed to the
// cloud alone, or cascaded (-d folder, then the cloud: the first copy's
// history, with the first run's generation, gets one more).
func TestKilledHistoryUploadResumes(t *testing.T) {
	t.Parallel()
	for _, cascade := range []bool{false, true} {
		for _, step := range []string{"cloud seal: history staged", "cloud seal: manifests uploaded"} {
			name := strings.ReplaceAll(step, " ", "_")
			if cascade {
				name = "cascade_" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s, bk, env, dir, card := killedInHistory(t, step, cascade)
				before := listed(t, s, bk)
				_, chainThere := before["ascmhl/ascmhl_chain.xml"]
				require.False(t, chainThere, "killed before the chain went up")
				// Gone up before the kill: the card's manifest (and the
				// first run's) with the files; dit's new one with the
				// history, before its chain.
				want := 1
				if cascade {
					want++
				}
				if strings.Contains(step, "manifests") {
					want++
				}
				require.Equal(t, want, countManifests(before))

				res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
				require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
				sum := lastSummary(t, res.Stdout)
				require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
				after := listed(t, s, bk)
				for key, o := range before {
					require.Equal(t, o, after[key], "%s is as the killed run left it", key)
				}
				require.Contains(t, after, "ascmhl/ascmhl_chain.xml")
				dl := verifyDownloaded(t, s, e2e.ReferenceTool(t), "ditcloud:"+bk+"/show/day01/A001", filepath.Join(dir, "download", "A001"))
				ms := manifests(t, dl)
				require.Len(t, ms, map[bool]int{false: 2, true: 3}[cascade])
				last, err := os.ReadFile(filepath.Join(dl, "ascmhl", ms[len(ms)-1]))
				require.NoError(t, err)
				require.Contains(t, string(last), " to rclone:ditcloud:"+bk+"/show/day01/A001;")
				_, err = os.Stat(filepath.Join(card, "ascmhl", "ascmhl_chain.xml"))
				require.NoError(t, err)
			})
		}
	}
}

// countManifests counts the manifests in a listing of the card's folder.
func countManifests(objs map[string]object) int {
	n := 0
	for key := range objs {
		if strings.HasPrefix(key, "ascmhl/") && strings.HasSuffix(key, ".mhl") {
			n++
		}
	}
	return n
}

// An object someone put at the history's chain name while the job was
// down is never written over: the resume fails naming it, the card is not
// safe to format, and the object stays as it was.
func TestResumedHistoryNeverOverwrites(t *testing.T) {
	t.Parallel()
	s, bk, env, dir, _ := killedInHistory(t, "cloud seal: manifests uploaded", false)
	other := filepath.Join(dir, "other.xml")
	require.NoError(t, os.WriteFile(other, []byte("<not the chain/>\n"), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:"+bk+"/show/day01/A001/ascmhl/ascmhl_chain.xml")
	before := listed(t, s, bk)

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 3, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	sum := lastSummary(t, res.Stdout)
	require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.Contains(t, res.Stdout, "rclone:ditcloud:"+bk+"/show/day01/A001/ascmhl/ascmhl_chain.xml is there and differs from the history dit wrote for this card")
	require.Equal(t, before, listed(t, s, bk), "nothing on the remote changed")
}

// killedInHistory offloads a card that carries the reference tool's
// history to the cloud alone (cascade: to a folder, then the cloud) and
// kills dit at step (job 1).
func killedInHistory(t *testing.T, step string, cascade bool) (s *s3test.Server, bk string, env []string, dir, card string) {
	t.Helper()
	s, bk = bucket(t)
	bin := e2e.ReferenceTool(t)
	dir = t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	env = append(append(os.Environ(), "DIT_DB="+db), s.Env...)
	card = handCard(t, dir)
	c := e2e.RunTool(t, filepath.Join(bin, "ascmhl"), "create", "-h", "xxh64", card)
	require.Equal(t, 0, c.Code, c.Out)
	args := []string{"offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:" + bk + "/show", card}
	if cascade {
		require.NoError(t, os.Mkdir(filepath.Join(dir, "raid"), 0o755))
		args = []string{"offload", "--json", "--name", "day01", "-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:" + bk + "/show", card}
	}
	r, killed := e2e.DitCrash(t, db, append(append([]string(nil), s.Env...), "DIT_CRASH_AT="+step), args...)
	require.True(t, killed, "killed at %q: %s\n%s", step, r.Stderr, e2e.Tail(r.Stdout))
	return s, bk, env, dir, card
}
