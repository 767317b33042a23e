package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The README's runnable examples. A fenced ```sh block right after a line
// <!-- readme-test --> is run, line by line, by TestREADME; every line
// must exit 0. Placeholders are environment variables the test sets:
// $CARDS (the cards; the README's quick start generates A001 and A002
// there), $RAID, $SHUTTLE1, $SHUTTLE2 (empty destination folders),
// $BLADES (Blade1 ... Blade4, empty), $WORK (scratch, the current folder),
// and DIT_DB (a catalog of its own). `dit` on the PATH is the binary under
// test. Lines starting with "make " are not run (make targets have their
// own runs). docs/testing.md describes the convention.

const readmeMarker = "<!-- readme-test -->"

// readmeBlock is one runnable block: its first line in the file, its
// command lines.
type readmeBlock struct {
	line  int
	lines []string
}

// readmeBlocks returns the runnable blocks of a Markdown text.
func readmeBlocks(text string) ([]readmeBlock, error) {
	var blocks []readmeBlock
	sc := bufio.NewScanner(strings.NewReader(text))
	n, marked, in := 0, false, false
	var cur readmeBlock
	for sc.Scan() {
		n++
		l := sc.Text()
		t := strings.TrimSpace(l)
		switch {
		case in && t == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			if k := len(cur.lines); k > 0 && strings.HasSuffix(cur.lines[k-1], "\\") {
				cur.lines[k-1] = strings.TrimSuffix(cur.lines[k-1], "\\") + " " + t
			} else if t != "" && !strings.HasPrefix(t, "#") {
				cur.lines = append(cur.lines, t)
			}
		case t == readmeMarker:
			marked = true
		case marked && t == "```sh":
			in, marked = true, false
			cur = readmeBlock{line: n}
		case marked && t != "":
			return nil, fmt.Errorf("line %d: %s must be followed by a ```sh block, found %q", n, readmeMarker, t)
		}
	}
	if in {
		return nil, fmt.Errorf("line %d: runnable block not closed", cur.line)
	}
	if marked {
		return nil, fmt.Errorf("%s at the end with no block", readmeMarker)
	}
	return blocks, sc.Err()
}

// readmeEnv makes the placeholders' folders and returns the environment
// and the work folder.
func readmeEnv(t *testing.T) ([]string, string) {
	root := t.TempDir()
	dirs := map[string]string{}
	for _, v := range []string{"CARDS", "RAID", "SHUTTLE1", "SHUTTLE2", "BLADES", "WORK"} {
		dirs[v] = filepath.Join(root, strings.ToLower(v))
	}
	for _, v := range []string{"RAID", "SHUTTLE1", "SHUTTLE2", "WORK"} {
		require.NoError(t, os.MkdirAll(dirs[v], 0o755))
	}
	for i := 1; i <= 4; i++ {
		require.NoError(t, os.MkdirAll(filepath.Join(dirs["BLADES"], fmt.Sprintf("Blade%d", i)), 0o755))
	}
	env := []string{
		"PATH=" + filepath.Dir(e2e.Bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "home", ".config"),
		"XDG_DATA_HOME=" + filepath.Join(root, "home", ".local", "share"),
		"DIT_DB=" + filepath.Join(root, "catalog.db"),
		"TMPDIR=" + os.TempDir(),
	}
	for v, d := range dirs {
		env = append(env, v+"="+d)
	}
	return env, dirs["WORK"]
}

// runReadme runs every line of the blocks in order; the first that does
// not exit 0 is the error, with its README line and output.
func runReadme(blocks []readmeBlock, env []string, work string) (ran int, err error) {
	for _, b := range blocks {
		for _, l := range b.lines {
			if strings.HasPrefix(l, "make ") {
				continue
			}
			cmd := exec.Command("sh", "-e", "-c", l)
			cmd.Env, cmd.Dir = env, work
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			ran++
			if err := cmd.Run(); err != nil {
				return ran, fmt.Errorf("README block at line %d: %s: %v\n%s", b.line, l, err, out.String())
			}
		}
	}
	return ran, nil
}

func TestREADME(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(e2e.Root(t), "README.md"))
	require.NoError(t, err)
	blocks, err := readmeBlocks(string(text))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(blocks), 5, "the quick start and workflow blocks are marked %s", readmeMarker)
	env, work := readmeEnv(t)
	ran, err := runReadme(blocks, env, work)
	require.NoError(t, err)
	t.Logf("%d README commands in %d blocks ran", ran, len(blocks))
	require.GreaterOrEqual(t, ran, 20)
}

// The runner fails on a mistyped command, an unknown flag and a wrong
// placeholder, and refuses a marker without its block.
func TestREADMECatchesBrokenCommands(t *testing.T) {
	env, work := readmeEnv(t)
	for _, bad := range []string{
		"dit offlod -d $RAID $CARDS/A001",
		"dit jobs --no-such-flag",
		"dit mhl verify $RAID/NoSuchDay/A001",
	} {
		blocks, err := readmeBlocks("text\n\n" + readmeMarker + "\n```sh\ndit jobs --help\n" + bad + "\n```\n")
		require.NoError(t, err)
		require.Len(t, blocks, 1)
		ran, err := runReadme(blocks, env, work)
		require.Error(t, err, bad)
		require.Equal(t, 2, ran)
		require.Contains(t, err.Error(), bad)
	}
	_, err := readmeBlocks(readmeMarker + "\nsome text\n```sh\ndit jobs\n```\n")
	require.Error(t, err)
}
