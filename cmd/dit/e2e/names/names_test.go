package names

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// nameClass is one class of names a card can hold: a card of its own
// holding files, refused at the start or safe to format, never failed
// after copying.
type nameClass struct {
	class string
	card  string   // the card folder's name; "A001" when empty
	files []string // slash paths on the card
	// pending names the change this class waits for: until it lands the
	// class is skipped with what still goes wrong; once it passes, the
	// test fails until pending is removed (so it is never left behind).
	pending string
	// refSees, when set, is the readable form (ascmhl.DisplayName) the
	// reference tool reads instead of a name XML cannot carry: its verify
	// fails naming it (with -dh it stops on a name that is not UTF-8);
	// dit's reader takes the exact bytes from dit:pathbytes. The test
	// says so.
	refSees string
}

// deepPath is a file 17 folders of 250 bytes down: a path of 4,279 bytes,
// over Linux's PATH_MAX (4,096), so no single system call can name it.
func deepPath() string {
	var b strings.Builder
	for i := range 17 {
		fmt.Fprintf(&b, "d%02d%s/", i, strings.Repeat("x", 247))
	}
	return b.String() + "deep 🎬.mov"
}

func classes() []nameClass {
	perChar := func(class, c string) nameClass {
		return nameClass{class: class, files: []string{"CLIPS/a" + c + "b.mov", c, "DIR" + c + "/x" + c + ".mov"}}
	}
	return []nameClass{
		{class: "NFC", files: []string{"CLIPS/caf\u00e9.mov", "Caf\u00e9/A001C001.mov"}},
		{class: "NFD", files: []string{"CLIPS/cafe\u0301.mov", "Cafe\u0301/A001C001.mov"}},
		{class: "NFC and NFD side by side", files: []string{"CLIPS/caf\u00e9.mov", "CLIPS/cafe\u0301.mov"}},
		{class: "emoji", files: []string{"🎬 take 1/👩‍💻 ❤️.mov", "CLIPS/🇩🇪.mov"}},
		{class: "CJK", files: []string{"東京ロケ/撮影 第一日.mov", "카메라/클립.mov", "CLIPS/中文名.mov"}},
		{class: "spaces", files: []string{"CLIPS/ lead.mov", "CLIPS/trail.mov ", "CLIPS/two  spaces.mov", " DIR /x.mov", "   "}},
		{class: "leading dash", files: []string{"-rf", "--help", "-d/-x.mov"}},
		{class: "newline", files: []string{"CLIPS/new\nline.mov", "\n", "DIR\n/x.mov"}},
		{class: "tab and carriage return", files: []string{"CLIPS/tab\t.mov", "CLIPS/cr\r.mov", "\r\n"}},
		perChar("backslash", "\\"),
		{class: "backslash as a way out", files: []string{"..\\..\\x.mov", "CLIPS/..\\y.mov", "CLIPS\\z.mov"}},
		perChar("colon", ":"),
		perChar("star", "*"),
		perChar("question mark", "?"),
		perChar("less than", "<"),
		perChar("greater than", ">"),
		perChar("pipe", "|"),
		{class: "XML specials", files: []string{"CLIPS/a&b.mov", "CLIPS/\"q\" 'a'.mov", "CLIPS/]]>.mov", "CLIPS/&#x41;.mov"}},
		{class: "names XML cannot carry", files: []string{"CLIPS/ctl\x01.mov", "CLIPS/bad\xff.mov", "CLIPS/esc\x1b[31m.mov"},
			refSees: "CLIPS/ctl%01.mov"},
		{class: "255-byte names", files: []string{
			strings.Repeat("n", 251) + ".mov",
			"CLIPS/" + strings.Repeat("東", 85),
			strings.Repeat("D", 255) + "/" + strings.Repeat("f", 251) + ".mov",
			"CLIPS/" + strings.Repeat("m", 231) + ".mov",
		}},
		{class: "255-byte card folder", card: strings.Repeat("C", 250) + " 🎬", files: []string{"CLIPS/A001C001.mov"}},
		// Refused at the start, naming the folder the system cannot reach.
		{class: "path over 4,096 bytes", files: []string{deepPath(), "top.mov"}},
	}
}

// TestEveryNameClassEndsSafeOrIsRefusedAtTheStart offloads one card per
// class with both hash lists and checks the outcome end to end.
func TestEveryNameClassEndsSafeOrIsRefusedAtTheStart(t *testing.T) {
	ref := referenceTool(t)
	for _, c := range classes() {
		t.Run(c.class, func(t *testing.T) {
			err := offloadClass(t, c, ref)
			switch {
			case c.pending != "" && err != nil:
				t.Skipf("pending %s: %v", c.pending, err)
			case c.pending != "":
				t.Fatalf("the class passes now: remove its pending mark (%s)", c.pending)
			case err != nil:
				t.Fatal(err)
			}
		})
	}
}

// offloadClass offloads a card holding c's files; nil when the card ends
// safe with every check passing or is refused at the start naming a file.
func offloadClass(t *testing.T, c nameClass, ref string) error {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	name := c.card
	if name == "" {
		name = "A001"
	}
	card := filepath.Join(dir, "cards", name)
	writeCard(t, card, c.files)
	dest := filepath.Join(dir, "dest")
	if err := os.Mkdir(dest, 0o755); err != nil {
		return err
	}
	r := e2e.Dit(t, db, "offload", "--mhl", "both", "--layout", "{card}", "-d", dest, card)
	out := r.Stdout + r.Stderr
	if r.Code != 0 {
		return refusedAtStart(r, filepath.Join(dest, name), c.files)
	}
	if err := safe(t, db); err != nil {
		return fmt.Errorf("%w\n%s", err, e2e.Tail(out))
	}
	folder := filepath.Join(dest, name)
	if err := identical(card, folder); err != nil {
		return err
	}
	if v := e2e.Dit(t, db, "verify", "1"); v.Code != 0 {
		return fmt.Errorf("dit verify 1: exit %d\n%s", v.Code, e2e.Tail(v.Stdout+v.Stderr))
	}
	if v := e2e.Dit(t, db, "mhl", "verify", "--directory-hashes", "--verify-hashes", "all", folder); v.Code != 0 {
		return fmt.Errorf("dit mhl verify (ASC MHL): exit %d\n%s", v.Code, e2e.Tail(v.Stdout+v.Stderr))
	}
	if err := checkSchemas(t, folder); err != nil {
		return err
	}
	if err := checkV1(t, db, folder, filepath.Join(dir, "aside"), len(c.files)); err != nil {
		return err
	}
	if ref == "" {
		return nil
	}
	for _, args := range [][]string{{"verify", folder}, {"verify", "-dh", folder}} {
		res := e2e.RunTool(t, filepath.Join(ref, "ascmhl-debug"), args...)
		switch {
		case c.refSees == "" && res.Code != 0:
			return fmt.Errorf("ascmhl-debug %s: exit %d\n%s", strings.Join(args, " "), res.Code, e2e.Tail(res.Out))
		case c.refSees != "" && (res.Code == 0 || len(args) == 2 && !strings.Contains(res.Out, c.refSees)):
			return fmt.Errorf("ascmhl-debug %s: want it to miss %q (a name XML cannot carry), got exit %d\n%s", strings.Join(args, " "), c.refSees, res.Code, e2e.Tail(res.Out))
		case c.refSees != "" && len(args) == 2:
			t.Logf("the reference tool reads %q, the readable form of a name XML cannot carry: it misses the file (dit reads the exact bytes)", c.refSees)
		}
	}
	return nil
}

// refusedAtStart: nil when the failed offload r copied nothing to the
// card's folder and named one of the files, or a folder holding it (a
// folder too deep to list names the files in it); CLIPS and DIR, the
// folders of many classes, do not count.
func refusedAtStart(r e2e.Result, folder string, files []string) error {
	out := r.Stdout + r.Stderr
	copied, err := hashTree(folder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(copied) > 0 {
		return fmt.Errorf("dit offload exit %d after copying %d file(s): neither safe nor refused at the start\n%s", r.Code, len(copied), e2e.Tail(out))
	}
	for _, f := range files {
		for _, el := range strings.Split(f, "/") {
			if el == "CLIPS" || el == "DIR" {
				continue
			}
			if q := strconv.Quote(el); strings.Contains(out, el) || strings.Contains(out, q[1:len(q)-1]) {
				return nil
			}
		}
	}
	return fmt.Errorf("dit offload refused the card (exit %d) without naming a file\n%s", r.Code, e2e.Tail(out))
}

// safe: nil when job 1 is done and its card safe to format.
func safe(t *testing.T, db string) error {
	r := e2e.Dit(t, db, "jobs", "--json")
	var jobs []struct {
		State string `json:"state"`
		Cards []struct {
			Safe bool `json:"safe_to_format"`
		} `json:"cards"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &jobs); err != nil {
		return fmt.Errorf("dit jobs --json: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	if len(jobs) != 1 || jobs[0].State != "done" || len(jobs[0].Cards) != 1 || !jobs[0].Cards[0].Safe {
		return fmt.Errorf("want one done job with its card safe to format, got %+v", jobs)
	}
	return nil
}

// identical: nil when folder holds exactly the card's files, byte for
// byte, besides the hash lists (ascmhl/ and the MHL v1.1 list).
func identical(card, folder string) error {
	want, err := hashTree(card)
	if err != nil {
		return err
	}
	got, err := hashTree(folder)
	if err != nil {
		return err
	}
	for rel, sum := range want {
		g, ok := got[rel]
		switch {
		case !ok:
			return fmt.Errorf("%q: not copied", rel)
		case g != sum:
			return fmt.Errorf("%q: the copy differs from the card", rel)
		}
		delete(got, rel)
	}
	for rel := range got {
		if !strings.HasPrefix(rel, "ascmhl/") && (strings.Contains(rel, "/") || !strings.HasSuffix(rel, ".mhl")) {
			return fmt.Errorf("%q: in the copy, not on the card", rel)
		}
	}
	return nil
}

// checkSchemas: nil when the folder's manifests, its chain and its MHL
// v1.1 list are valid against their schemas (xmllint; without it the
// check is skipped with a message).
func checkSchemas(t *testing.T, folder string) error {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Log("xmllint is not installed (Debian: apt-get install libxml2-utils): the hash lists are not checked against their schemas")
		return nil
	}
	manifests, err := filepath.Glob(filepath.Join(folder, "ascmhl", "*.mhl"))
	if err != nil || len(manifests) != 1 {
		return fmt.Errorf("want one manifest in %s/ascmhl, got %v (%v)", folder, manifests, err)
	}
	lists, err := filepath.Glob(filepath.Join(folder, "*.mhl"))
	if err != nil || len(lists) != 1 {
		return fmt.Errorf("want one MHL v1.1 list in %s, got %v (%v)", folder, lists, err)
	}
	schemas := filepath.Join(e2e.Root(t), "testdata", "mhl")
	for xsd, file := range map[string]string{"ASCMHL.xsd": manifests[0], "ASCMHLDirectory_local.xsd": filepath.Join(folder, "ascmhl", "ascmhl_chain.xml"),
		"MediaHashList_v1_1.xsd": lists[0]} {
		if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join(schemas, xsd), file).CombinedOutput(); err != nil {
			return fmt.Errorf("xmllint --schema %s %s: %v\n%s", xsd, file, err, out)
		}
	}
	return nil
}

// checkV1: nil when dit verifies the folder's MHL v1.1 list on its own
// (the ASC MHL history moved aside for it, then back): all n files match,
// and no file is left unlisted.
func checkV1(t *testing.T, db, folder, aside string, n int) error {
	if err := os.Rename(filepath.Join(folder, "ascmhl"), aside); err != nil {
		return err
	}
	v := e2e.Dit(t, db, "mhl", "verify", folder)
	if err := os.Rename(aside, filepath.Join(folder, "ascmhl")); err != nil {
		return err
	}
	if v.Code != 0 || v.Stderr != "" || !strings.Contains(v.Stdout, fmt.Sprintf(": %d files match the MHL v1.1 list", n)) {
		return fmt.Errorf("dit mhl verify (the MHL v1.1 list): exit %d\n%s", v.Code, e2e.Tail(v.Stdout+v.Stderr))
	}
	return nil
}

// referenceTool is the ASC reference tool's bin folder, or "" (with a
// message) where python3 is not installed.
func referenceTool(t *testing.T) string {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 is not installed: the ASC reference tool's verify is skipped (install python3 to run it)")
		return ""
	}
	return e2e.ReferenceTool(t)
}
