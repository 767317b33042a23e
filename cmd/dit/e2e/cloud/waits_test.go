//go:build unix

package cloud

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// cutUploads is the environment that has rclone itself cut every upload
// past 2 MiB mid-way (its --max-transfer, which rclone reads from the
// environment as it would from a user's), as a dropped connection would:
// the 3 MiB clip of the cards below fails to reach the bucket, their
// other files (each under 1.1 MiB, 1.9 MiB in all) go up.
const cutUploads = "RCLONE_MAX_TRANSFER=2M"

// A card streamed to the cloud alone, one of whose files does not reach
// the bucket: the card is not safe to format, nothing of its ASC MHL
// history is in the bucket (its chain object can be written only once),
// and dit says why and what to do. dit offload --resume uploads the file,
// then writes the history: the folder downloaded from the bucket verifies
// with the ASC reference tool, its one generation listing every file, and
// the card was never written to.
func TestFailedUploadHoldsHistoryUntilResumed(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	before := snapshot(t, card)

	r := e2e.RunDit(t, append(env, cutUploads), "offload", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	waits := "history not written to rclone:ditcloud:" + bk + "/show/day01/A001: 1 file not verified there (CLIPS/A001C001.mov): dit offload --resume 1 uploads it and writes the history"
	for _, want := range []string{
		"A001  FAILED: 1 file not verified in the cloud, so the card's history is not written there: NOT safe to format (dit offload --resume 1 uploads it and writes the history)\n",
		"FAILED (hash lists): " + waits + "\n",
		"FAILED CLIPS/A001C001.mov: upload of rclone:ditcloud:" + bk + "/show/day01/A001/CLIPS/A001C001.mov failed: ",
		"Next: the cloud history of 1 card(s) waits for files not verified there: once the cause is fixed (see above), upload them and write it with: dit offload --resume 1",
	} {
		require.Contains(t, r.Stdout, want)
	}
	show := e2e.RunDit(t, env, "job", "show", "1", "--json")
	require.Equal(t, 0, show.Code, show.Stderr)
	var sum summary
	require.NoError(t, json.Unmarshal([]byte(show.Stdout), &sum))
	require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	held := listed(t, s, bk)
	require.NotContains(t, held, "CLIPS/A001C001.mov")
	require.Contains(t, held, "CLIPS/Sce\u0301ne 2.mov")
	for key := range held {
		require.False(t, strings.HasPrefix(key, "ascmhl/"), "%s: no history object while a file is not verified", key)
	}

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	sum = lastSummary(t, res.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	after := listed(t, s, bk)
	for key, o := range held {
		require.Equal(t, o, after[key], "%s is as the first run left it", key)
	}
	dl := verifyDownloaded(t, s, bin, "ditcloud:"+bk+"/show/day01/A001", filepath.Join(dir, "download", "A001"))
	ms := manifests(t, dl)
	require.Len(t, ms, 1, "one generation, written once")
	requireLists(t, filepath.Join(dl, "ascmhl", ms[0]), card)
	got, want := e2e.Tree(t, dl), e2e.Tree(t, card)
	for rel, h := range want {
		require.Equal(t, h, got[rel], rel)
	}
	require.Equal(t, before, snapshot(t, card), "the card is as it was")
}

// The same in a cascade's second run (the card to a folder, then the
// cloud, uploaded by rclone copy from the verified first copy): the card
// is free but not safe, no chain object is in the bucket (the first
// copy's manifest went up with its files), and the resume uploads the
// clip and writes the cloud hop's generation, listing every file.
func TestCascadeFailedUploadHoldsHistoryUntilResumed(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	// Few files, so that rclone sends them all at once: the small ones
	// are up before the clip reaches the cut.
	card := filepath.Join(dir, "cards", "A001")
	for rel, n := range map[string]int{"CLIPS/A001C001.mov": 3 << 20, "CLIPS/A001C001.xml": 2 << 10} {
		p := filepath.Join(card, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		b := make([]byte, n)
		rand.Read(b)
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	raid := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(raid, 0o755))
	before := snapshot(t, card)

	r := e2e.RunDit(t, append(env, cutUploads), "offload", "--json", "--name", "day01", "-d", raid, "--then", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	sum := lastSummary(t, r.Stdout)
	require.True(t, sum.Cards[0].CardFree)
	require.False(t, sum.Cards[0].SafeToFormat)
	require.Contains(t, sum.Cards[0].Verdict, "): 1 file not verified in the cloud, so the card's history is not written there: NOT safe to format: keep the card (dit offload --resume 1 uploads it and writes the history)")
	require.Contains(t, r.Stdout, "history not written to rclone:ditcloud:"+bk+"/show/day01/A001: 1 file not verified there (CLIPS/A001C001.mov): dit offload --resume 1 uploads it and writes the history")
	first := manifests(t, filepath.Join(raid, "day01", "A001"))
	held := listed(t, s, bk)
	require.NotContains(t, held, "CLIPS/A001C001.mov")
	require.NotContains(t, held, "ascmhl/ascmhl_chain.xml")
	var there []string
	for key := range held {
		if strings.HasPrefix(key, "ascmhl/") {
			there = append(there, strings.TrimPrefix(key, "ascmhl/"))
		}
	}
	sort.Strings(there)
	require.Equal(t, first, there, "only the first copy's manifests, with its files")

	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	sum = lastSummary(t, res.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	dl := verifyDownloaded(t, s, bin, "ditcloud:"+bk+"/show/day01/A001", filepath.Join(dir, "download", "A001"))
	ms := manifests(t, dl)
	require.Len(t, ms, len(first)+1, "the first copy's history and the cloud hop's generation")
	require.Equal(t, first, ms[:len(first)])
	last := filepath.Join(dl, "ascmhl", ms[len(first)])
	requireLists(t, last, card)
	b, err := os.ReadFile(last)
	require.NoError(t, err)
	require.Contains(t, string(b), " to rclone:ditcloud:"+bk+"/show/day01/A001;")
	require.Equal(t, before, snapshot(t, card), "the card is as it was")
}

// requireLists checks that the manifest at path lists every file of card.
func requireLists(t *testing.T, path, card string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for rel := range e2e.Tree(t, card) {
		require.Contains(t, string(b), ">"+rel+"</path>", "the generation lists %s", rel)
	}
}

// A resume with more to write for a card whose cloud history this job
// wrote already (here a file added to the card since): the chain object
// is never replaced, so the resume refuses to add a generation and says
// what to do; the new file is verified in the bucket, nothing that was
// there changed, and the history there still verifies.
func TestHistoryWrittenRefusesMoreAndSaysWhatToDo(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/show", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.True(t, lastSummary(t, r.Stdout).Cards[0].SafeToFormat)
	held := listed(t, s, bk)

	require.NoError(t, os.WriteFile(filepath.Join(card, "CLIPS", "A001C002.mov"), []byte("shot after the offload"), 0o644))
	res := e2e.RunDit(t, env, "offload", "--resume", "1")
	require.Equal(t, 3, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	require.Contains(t, res.Stdout, "rclone:ditcloud:"+bk+"/show/day01/A001/ascmhl holds the card's ASC MHL history that this job wrote there once every file was verified, and dit never replaces an object, so no generation can be added to it: it does not record this card's files with the card's hashes: CLIPS/A001C002.mov: those files are verified there, but the card is not safe to format by this job: offload it again to another cloud folder, whose history lists every file\n")
	require.Contains(t, res.Stdout, "A001  Copies checked, but the card's cloud history, written by this job before, cannot list them all: NOT safe to format by this job (offload it again to another cloud folder)\n")
	require.Contains(t, res.Stdout, "Next: the cloud history of 1 card(s) was written by this job before and cannot list every file (dit never replaces an object): offload them again to another cloud folder\n")
	after := listed(t, s, bk)
	for key, o := range held {
		require.Equal(t, o, after[key], "%s is as it was", key)
	}
	require.Contains(t, after, "CLIPS/A001C002.mov")
	require.Len(t, after, len(held)+1, "only the new file was sent")
	// The history there is whole: the folder as it was verifies.
	dl := filepath.Join(dir, "download", "A001")
	s.Rclone(t, "copy", "ditcloud:"+bk+"/show/day01/A001", dl, "--exclude", "/CLIPS/A001C002.mov")
	ref := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", dl)
	require.Equal(t, 0, ref.Code, ref.Out)
}

// Two cloud destinations, a file failed on one only (an object of its
// name is there already and is not the card's: dit never writes over
// it): the other gets its history, this one waits. Once the object is
// moved away (as dit says), the resume uploads the file there and writes
// that destination's history; the first destination's, this job's and
// whole, is kept as it is, without a warning.
func TestHistoryWaitsOnOneDestinationOnly(t *testing.T) {
	t.Parallel()
	s, bk := bucket(t)
	bin := e2e.ReferenceTool(t)
	dir := t.TempDir()
	env := append(append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db")), s.Env...)
	card := handCard(t, dir)
	before := snapshot(t, card)
	other := filepath.Join(dir, "other.mov")
	require.NoError(t, os.WriteFile(other, []byte("someone else's"), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:"+bk+"/b/day01/A001/CLIPS/A001C001.mov")

	r := e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/a", "-d", "rclone:ditcloud:"+bk+"/b", card)
	require.Equal(t, 3, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Contains(t, r.Stdout, "FAILED (hash lists): history not written to rclone:ditcloud:"+bk+"/b/day01/A001: 1 file not verified there (CLIPS/A001C001.mov): dit offload --resume 1 uploads it and writes the history\n")
	require.NotContains(t, r.Stdout, "history not written to rclone:ditcloud:"+bk+"/a")
	a := listedAt(t, s, "ditcloud:"+bk+"/a/day01/A001")
	require.Contains(t, a, "ascmhl/ascmhl_chain.xml", "the destination with every file verified has its history")
	for key := range listedAt(t, s, "ditcloud:"+bk+"/b/day01/A001") {
		require.False(t, strings.HasPrefix(key, "ascmhl/"), "%s: none on the other", key)
	}

	s.Rclone(t, "deletefile", "ditcloud:"+bk+"/b/day01/A001/CLIPS/A001C001.mov")
	res := e2e.RunDit(t, env, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
	sum := lastSummary(t, res.Stdout)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.NotContains(t, res.Stdout, "holds an ASC MHL history already")
	require.Equal(t, a, listedAt(t, s, "ditcloud:"+bk+"/a/day01/A001"), "the first destination is as it was")
	for _, d := range []string{"a", "b"} {
		dl := verifyDownloaded(t, s, bin, "ditcloud:"+bk+"/"+d+"/day01/A001", filepath.Join(dir, "download", d))
		ms := manifests(t, dl)
		require.Len(t, ms, 1, d)
		requireLists(t, filepath.Join(dl, "ascmhl", ms[0]), card)
	}
	require.Equal(t, before, snapshot(t, card), "the card is as it was")
}
