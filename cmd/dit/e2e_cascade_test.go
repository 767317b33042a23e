package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cascadeSummary is the part of the JSON summary a cascade test reads.
type cascadeSummary struct {
	Type     string   `json:"type"`
	JobID    int64    `json:"job_id"`
	State    string   `json:"state"`
	ExitCode int      `json:"exit_code"`
	Then     []string `json:"then"`
	Cards    []struct {
		Label        string    `json:"label"`
		SafeToFormat bool      `json:"safe_to_format"`
		CardFree     bool      `json:"card_free"`
		FreeAt       time.Time `json:"card_free_at"`
		SafeAt       time.Time `json:"safe_to_format_at"`
		Verdict      string    `json:"verdict"`
		Then         *struct {
			State        string `json:"state"`
			Failed       int    `json:"failed"`
			Destinations []struct {
				Path     string `json:"path"`
				Verified int    `json:"verified"`
			} `json:"destinations"`
			Failures []struct {
				Path  string `json:"path"`
				Error string `json:"error"`
			} `json:"failures"`
		} `json:"then"`
	} `json:"cards"`
}

// lastSummary reads the summary line of a --json run.
func lastSummary(t *testing.T, stdout string) (cascadeSummary, []map[string]any) {
	t.Helper()
	var s cascadeSummary
	var events []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) != nil {
			continue
		}
		events = append(events, ev)
		if ev["type"] == "summary" {
			require.NoError(t, json.Unmarshal([]byte(l), &s))
		}
	}
	require.Equal(t, "summary", s.Type, "no summary in:\n%s", tail(stdout))
	return s, events
}

// The reference cascade: two cards to a 4-blade RAID 4 array first, then
// from the array (through its reader) to two shuttle folders. Every
// shuttle file is the card's, byte for byte; each card is free before it
// is safe to format; the reference tool accepts every shuttle's history,
// which carries the first copy's generation and the second hop's.
func TestCascadeArrayToShuttles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "6MB", "--style", "mixed", "--seed", "21")
	require.Equal(t, 0, r.code, r.stderr)
	var blades []string
	for i := 1; i <= 4; i++ {
		b := filepath.Join(dir, "Blade"+string(rune('0'+i)))
		require.NoError(t, os.Mkdir(b, 0o755))
		blades = append(blades, b)
	}
	r = dit(t, db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "cart"}, blades...)...)
	require.Equal(t, 0, r.code, r.stderr)
	s1, s2 := filepath.Join(dir, "SHUTTLE1"), filepath.Join(dir, "SHUTTLE2")
	require.NoError(t, os.Mkdir(s1, 0o755))
	require.NoError(t, os.Mkdir(s2, 0o755))

	r = dit(t, db, "offload", "--name", "day01", "--json", "-d", blades[0], "--then", s1, "--then", s2,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	sum, events := lastSummary(t, r.stdout)
	require.Len(t, sum.Then, 2)
	require.Len(t, sum.Cards, 2, "one entry per card, its second run with it")
	free := map[string]float64{}
	for i, ev := range events {
		if ev["type"] == "card_free" {
			free[ev["card"].(string)] = float64(i)
		}
	}
	for _, c := range sum.Cards {
		require.True(t, c.SafeToFormat, c.Verdict)
		require.True(t, c.CardFree)
		require.False(t, c.FreeAt.IsZero())
		require.True(t, c.SafeAt.After(c.FreeAt), "%s: free at %s, safe at %s", c.Label, c.FreeAt, c.SafeAt)
		require.NotNil(t, c.Then)
		require.Equal(t, "verified", c.Then.State)
		require.Len(t, c.Then.Destinations, 2)
		_, ok := free[c.Label]
		require.True(t, ok, "a card_free event for %s", c.Label)
		for _, s := range []string{s1, s2} {
			copyDir := filepath.Join(s, "day01", c.Label)
			require.Equal(t, footage(tree(t, filepath.Join(cards, c.Label))), withoutHistory(tree(t, copyDir)), "shuttle copy of %s", c.Label)
		}
	}
	// The card-free event comes before the second run's first file.
	for i, ev := range events {
		if ev["type"] == "file" && strings.HasSuffix(ev["card"].(string), "(2nd run)") {
			label := strings.TrimSuffix(ev["card"].(string), " (2nd run)")
			require.Less(t, free[label], float64(i), "card free before the second run of %s copies", label)
		}
	}

	// The history on each shuttle: the first copy's generation plus the
	// second hop's; both verifiers accept it.
	bin := referenceTool(t)
	for _, s := range []string{s1, s2} {
		for _, c := range []string{"A001", "A002"} {
			folder := filepath.Join(s, "day01", c)
			manifests, err := filepath.Glob(filepath.Join(folder, "ascmhl", "*.mhl"))
			require.NoError(t, err)
			require.Len(t, manifests, 2, "two generations in %s", folder)
			res := runTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", folder)
			require.Equal(t, 0, res.code, "ascmhl-debug verify %s:\n%s", folder, res.out)
			v := dit(t, db, "mhl", "verify", folder)
			require.Equal(t, 0, v.code, "dit mhl verify %s:\n%s%s", folder, v.stdout, v.stderr)
			b, err := os.ReadFile(manifests[1])
			require.NoError(t, err)
			require.Contains(t, string(b), "<process>transfer</process>")
		}
	}
	// What a person reads: the summary and dit jobs say both states.
	r = dit(t, db, "job", "show", itoa(sum.JobID))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "card free at")
	require.Contains(t, r.stdout, "safe to format at")
	require.Contains(t, r.stdout, "second run")
}

// A first copy damaged after it was verified (a byte flipped on a plain
// folder) is caught by the second run: that file fails, naming the hop and
// both hashes; it is not left on the shuttle; the card is free but NOT
// safe to format (exit 3). A resume with the card gone does not need it.
func TestCascadeDamagedFirstCopy(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "4MB", "--style", "mixed", "--seed", "22")
	require.Equal(t, 0, r.code, r.stderr)
	first, shuttle := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(first, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	card := filepath.Join(cards, "A001")

	// Stop after the first run: Ctrl-C at the card-free event.
	code := interruptAtEvent(t, db, "card_free", "offload", "--name", "day01", "--then-parallel", "1", "-d", first, "--then", shuttle, card)
	require.Equal(t, 130, code)

	// Damage one file of the first copy (same size and time).
	var victim, rel string
	filepath.Walk(filepath.Join(first, "day01", "A001"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 1000 && victim == "" && !strings.Contains(p, "ascmhl") {
			victim = p
		}
		return nil
	})
	require.NotEmpty(t, victim)
	rel, _ = filepath.Rel(filepath.Join(first, "day01", "A001"), victim)
	fi, err := os.Stat(victim)
	require.NoError(t, err)
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x01
	require.NoError(t, os.WriteFile(victim, b, 0o644))
	require.NoError(t, os.Chtimes(victim, fi.ModTime(), fi.ModTime()))

	// The card has gone back to the camera: the resume does not need it.
	require.NoError(t, os.Rename(card, card+"-away"))
	r = dit(t, db, "offload", "--resume", "1", "--json")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)
	sum, _ := lastSummary(t, r.stdout)
	require.Contains(t, r.stdout, "does not need it")
	c := sum.Cards[0]
	require.True(t, c.CardFree)
	require.False(t, c.SafeToFormat, c.Verdict)
	require.Contains(t, c.Verdict, "NOT safe to format")
	require.NotNil(t, c.Then)
	require.Equal(t, 1, c.Then.Failed)
	require.Len(t, c.Then.Failures, 1)
	require.Equal(t, filepath.ToSlash(rel), c.Then.Failures[0].Path)
	require.Contains(t, c.Then.Failures[0].Error, "second run")
	require.Contains(t, c.Then.Failures[0].Error, "differs from the card")
	_, err = os.Stat(filepath.Join(shuttle, "day01", "A001", rel))
	require.ErrorIs(t, err, os.ErrNotExist, "the damaged file is not left on the shuttle")
	// Every other file made it, identical to the card.
	want := footage(tree(t, card+"-away"))
	delete(want, filepath.ToSlash(rel))
	require.Equal(t, want, withoutHistory(tree(t, filepath.Join(shuttle, "day01", "A001"))))
}

// interruptAtEvent runs dit --json and sends Ctrl-C at the first event of
// type typ; it returns the exit code.
func interruptAtEvent(t *testing.T, db, typ string, args ...string) int {
	t.Helper()
	cmd := exec.Command(ditBin, append(args, "--json")...)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	sent := false
	for sc.Scan() {
		var ev struct{ Type string }
		if !sent && json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == typ {
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			sent = true
		}
	}
	cmd.Wait()
	require.True(t, sent, "no %s event", typ)
	return cmd.ProcessState.ExitCode()
}
