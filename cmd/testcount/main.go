// Command testcount runs go test with -json and prints what go test prints
// without it (a line per package, the output of the tests that failed),
// then how many tests ran, passed, failed and were skipped across every
// package, with the skipped ones and why. It exits with go test's status
// (1 if go test said nothing went wrong but a test or a package failed),
// so a failure still fails make. Before that summary line it names the
// five slowest packages and the ten slowest tests; with -append, the
// summary line and those lists are appended to a file. Only the Go
// toolchain is needed.
//
//	testcount [-label NAME] [-skipped=false] [-append FILE] -- go test -json ./...
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

func main() {
	label := flag.String("label", "go test", "what the summary line calls the run")
	skipped := flag.Bool("skipped", true, "list the skipped tests and why after the summary")
	appendTo := flag.String("append", "", "also append the summary line to this `file`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testcount [-label NAME] [-skipped=false] [-append FILE] -- go test -json [flags] [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcount:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testcount:", err)
		os.Exit(1)
	}
	// An interrupt reaches go test too (same process group); keep reading
	// until it has said what it has to say.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	c := newCounter(os.Stdout)
	if err := c.read(out); err != nil {
		fmt.Fprintln(os.Stderr, "testcount: reading go test's output:", err)
	}
	werr := cmd.Wait()
	var sum strings.Builder
	c.summary(io.MultiWriter(os.Stdout, &sum), *label, *skipped)
	if *appendTo != "" {
		lines := strings.Split(strings.TrimSpace(sum.String()), "\n")
		last := lines[len(lines)-1]
		if s := c.slowest(5); s != "" {
			last += "\n  " + s
		}
		if s := slowestOf(c.tookTest, 10, "slowest tests:"); s != "" {
			last += "\n  " + s
		}
		f, err := os.OpenFile(*appendTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fmt.Fprintln(f, last)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testcount:", err)
		}
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		code = ee.ExitCode()
		if code <= 0 {
			code = 1 // killed by a signal
		}
	case werr != nil:
		fmt.Fprintln(os.Stderr, "testcount:", werr)
		code = 1
	}
	if code == 0 && c.failed() {
		code = 1
	}
	os.Exit(code)
}

// event is a line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string  // build-output, build-fail
	Elapsed    float64 // seconds, on a package's or test's end
}

// line is one line of a package's output: of a test, or of the package
// itself (test "").
type line struct {
	test string
	text string
}

type pkg struct {
	lines []line
	// end is each test's last action: pass, fail or skip ("" while it
	// runs).
	end map[string]string
}

type skip struct {
	pkg, test, why string
}

// counter follows go test -json and prints as go test does without it.
type counter struct {
	w    io.Writer
	pkgs map[string]*pkg

	run, passed, failedN, skippedN int
	pkgOK, pkgFailed, pkgNoTests   int
	skips                          []skip
	buildFailed                    map[string]bool
	// took is each package's time, as go test gives it at its end;
	// tookTest each top-level test's ("pkg Test").
	took, tookTest map[string]float64
	// failures are the tests that failed or never ended (a package timed
	// out or crashed while they ran), "pkg Test", in order.
	failures []string
}

func newCounter(w io.Writer) *counter {
	return &counter{w: w, pkgs: map[string]*pkg{}, buildFailed: map[string]bool{}, took: map[string]float64{}, tookTest: map[string]float64{}}
}

func (c *counter) pkg(name string) *pkg {
	p := c.pkgs[name]
	if p == nil {
		p = &pkg{end: map[string]string{}}
		c.pkgs[name] = p
	}
	return p
}

// read follows the stream to its end: lines that are not JSON (go
// command messages) are printed as they are.
func (c *counter) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		b := sc.Bytes()
		var e event
		if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil || e.Action == "" {
			fmt.Fprintln(c.w, string(b))
			continue
		}
		c.event(e)
	}
	return sc.Err()
}

func (c *counter) event(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(c.w, e.Output)
		return
	case "build-fail":
		c.buildFailed[e.ImportPath] = true
		return
	}
	if e.Package == "" {
		if e.Output != "" {
			fmt.Fprint(c.w, e.Output)
		}
		return
	}
	p := c.pkg(e.Package)
	switch e.Action {
	case "output":
		p.lines = append(p.lines, line{e.Test, e.Output})
	case "run":
		if e.Test != "" {
			c.run++
			p.end[e.Test] = ""
		}
	case "pass", "fail", "skip":
		if e.Test != "" {
			c.testEnd(e, p)
			return
		}
		c.pkgEnd(e, p)
	}
}

func (c *counter) testEnd(e event, p *pkg) {
	p.end[e.Test] = e.Action
	if !strings.Contains(e.Test, "/") && e.Action != "skip" {
		c.tookTest[shortPkg(e.Package)+" "+e.Test] = e.Elapsed
	}
	switch e.Action {
	case "pass":
		c.passed++
	case "fail":
		c.failedN++
		c.failures = append(c.failures, e.Package+" "+e.Test)
	case "skip":
		c.skippedN++
		c.skips = append(c.skips, skip{e.Package, e.Test, skipReason(p.lines, e.Test)})
	}
}

// skipReason is the last thing a skipped test said before "--- SKIP".
func skipReason(lines []line, test string) string {
	why := ""
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if l.test != test || t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		why = t
	}
	return why
}

// pkgEnd prints the package as go test does without -json: its result
// line, and when it failed, the output of what did not pass.
func (c *counter) pkgEnd(e event, p *pkg) {
	switch e.Action {
	case "pass":
		c.pkgOK++
	case "skip":
		c.pkgNoTests++
	case "fail":
		c.pkgFailed++
		c.unfinished(e.Package, p)
	}
	if e.Action != "skip" && e.Elapsed > 0 { // not a build that failed
		c.took[e.Package] = e.Elapsed
	}
	for _, l := range p.lines {
		t := strings.TrimSpace(l.text)
		switch {
		case e.Action != "fail":
			// A package that passed: its "ok" or "?" line only.
			if l.test == "" && (strings.HasPrefix(l.text, "ok ") || strings.HasPrefix(l.text, "?   ")) {
				fmt.Fprint(c.w, l.text)
			}
		case strings.HasPrefix(t, "=== "):
		case l.test == "" || (p.end[l.test] != "pass" && p.end[l.test] != "skip"):
			fmt.Fprint(c.w, l.text)
		}
	}
	delete(c.pkgs, e.Package)
}

// unfinished counts the tests of package name that were still running
// when it ended (a timeout's panic, a crash, go test killed) as failed,
// each named: a test that never ended did not pass.
func (c *counter) unfinished(name string, p *pkg) {
	var running []string
	for t, end := range p.end {
		if end == "" {
			running = append(running, t)
		}
	}
	sort.Strings(running)
	for _, t := range running {
		p.end[t] = "fail"
		c.failedN++
		c.failures = append(c.failures, name+" "+t+" (did not finish: timed out or crashed)")
	}
}

func (c *counter) failed() bool { return c.failedN > 0 || c.pkgFailed > 0 || len(c.buildFailed) > 0 }

// summary prints the counts; the last line is the summary line.
func (c *counter) summary(w io.Writer, label string, listSkipped bool) {
	// Packages that never ended (go test killed): what they said.
	var left []string
	for name := range c.pkgs {
		left = append(left, name)
	}
	sort.Strings(left)
	for _, name := range left {
		p := c.pkgs[name]
		for _, l := range p.lines {
			if !strings.HasPrefix(strings.TrimSpace(l.text), "=== ") && p.end[l.test] != "pass" && p.end[l.test] != "skip" {
				fmt.Fprint(w, l.text)
			}
		}
		fmt.Fprintf(w, "testcount: %s did not finish\n", name)
		c.pkgFailed++
		c.unfinished(name, p)
	}
	if listSkipped && len(c.skips) > 0 {
		c.listSkips(w)
	}
	if len(c.failures) > 0 {
		fmt.Fprintf(w, "failed:\n")
		for _, f := range c.failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	verdict := "PASS"
	if c.failed() {
		verdict = "FAIL"
	}
	pkgs := plural(c.pkgOK, "package") + " ok"
	if n := c.pkgFailed + len(c.buildFailed); n > 0 {
		pkgs += fmt.Sprintf(", %d failed", c.pkgFailed)
	}
	if len(c.buildFailed) > 0 {
		pkgs += fmt.Sprintf(" (%d did not build)", len(c.buildFailed))
	}
	if c.pkgNoTests > 0 {
		pkgs += fmt.Sprintf(", %d without tests", c.pkgNoTests)
	}
	if s := c.slowest(5); s != "" {
		fmt.Fprintln(w, s)
	}
	if s := slowestOf(c.tookTest, 10, "slowest tests:"); s != "" {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "== %s: %s: %s run, %d passed, %d failed, %d skipped (%s)\n",
		label, verdict, plural(c.run, "test"), c.passed, c.failedN, c.skippedN, pkgs)
}

// manySkips: more tests than this skipped for one reason are listed as
// one line, with how many of each package (the quick loop skips every
// PostgreSQL subtest of the catalog suite, for one reason).
const manySkips = 3

// listSkips lists the skipped tests and why, in the order they ended; a
// reason given by more than manySkips tests is one line.
func (c *counter) listSkips(w io.Writer) {
	byWhy := map[string][]skip{}
	for _, s := range c.skips {
		byWhy[s.why] = append(byWhy[s.why], s)
	}
	fmt.Fprintf(w, "skipped:\n")
	done := map[string]bool{}
	for _, s := range c.skips {
		why := s.why
		if why == "" {
			why = "(no reason given)"
		}
		group := byWhy[s.why]
		if len(group) <= manySkips {
			fmt.Fprintf(w, "  %s %s: %s\n", s.pkg, s.test, why)
			continue
		}
		if done[s.why] {
			continue
		}
		done[s.why] = true
		var order []string
		per := map[string]int{}
		for _, g := range group {
			if per[g.pkg] == 0 {
				order = append(order, g.pkg)
			}
			per[g.pkg]++
		}
		for i, p := range order {
			order[i] = fmt.Sprintf("%s %d", p, per[p])
		}
		fmt.Fprintf(w, "  %d tests (%s): %s\n", len(group), strings.Join(order, ", "), why)
	}
}

// slowest names the n packages that took longest, with their times ("" if
// none ended).
func (c *counter) slowest(n int) string { return slowestOf(c.took, n, "slowest packages:") }

// slowestOf names the n keys of took with the largest times, after title
// ("" if took is empty).
func slowestOf(took map[string]float64, n int, title string) string {
	names := make([]string, 0, len(took))
	for p := range took {
		names = append(names, p)
	}
	sort.Slice(names, func(i, j int) bool {
		if took[names[i]] != took[names[j]] {
			return took[names[i]] > took[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(title)
	for i, p := range names[:min(n, len(names))] {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %.1fs", p, took[p])
	}
	return b.String()
}

// shortPkg is a package path without the module's host and owner
// ("github.com/dit-org/dit/ui" is "dit/ui"), for the slowest-tests line.
func shortPkg(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 2 && strings.Contains(parts[0], ".") {
		return strings.Join(parts[2:], "/")
	}
	return p
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
