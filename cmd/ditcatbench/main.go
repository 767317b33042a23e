//go:build unix

// Command ditcatbench is the catalog-at-scale benchmark behind `make
// bench`: it builds a catalog of at least a million file rows through the
// catalog API (Generate: a production's days of frame-based cards, each
// file with two copies, as dit offload records them) and measures the
// real dit binary on it, each command a child process: its wall time
// (median of -runs after one warm-up) and its peak RSS (the child's
// rusage). Commands: dit jobs, dit day (today), dit find NAME (one hit),
// dit find PREFIX (1,000 files), dit job show and dit report --format
// csv|json|html|pdf|ale of a 100,000-file and a 10,000-file job (with
// the ratios of their peak RSS and times), and GET /api/status of a dit serve
// (its peak RSS read when it ends). On SQLite, and on PostgreSQL when
// the Debian package is installed (internal/catalog/pgtest starts a
// server), or on a server of one's own (-pg-url: the catalog is built
// there once a day and reused, so binaries before and after a change are
// measured on the same rows).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
)

func main() {
	dit := flag.String("dit", "bin/dit", "the dit binary to measure")
	db := flag.String("db", ".cache/catbench/catalog.db", "the SQLite catalog (built when missing)")
	runs := flag.Int("runs", 3, "measured runs of each command (after a warm-up)")
	files := flag.Int("files-per-card", 25000, "files of each card of the days' jobs")
	days := flag.Int("days", 10, "shooting days")
	pg := flag.Bool("pg", true, "also on PostgreSQL when its server can be started here")
	pgFiles := flag.Int("pg-files-per-card", 0, "files per card on PostgreSQL (0: as -files-per-card)")
	pgDays := flag.Int("pg-days", 0, "shooting days on PostgreSQL (0: as -days)")
	pgOnly := flag.Bool("pg-only", false, "measure PostgreSQL only")
	only := flag.String("only", "", "measure only the commands whose name contains this")
	pgURL := flag.String("pg-url", "", "a PostgreSQL database to measure on instead of a server started here (built when its facts file, -pg-facts, is not of today)")
	pgFacts := flag.String("pg-facts", ".cache/catbench/pg.facts", "with -pg-url: what the catalog holds, written when it is built")
	bigFiles := flag.Int("big-files", 100000, "files of the big job (job show, report)")
	flag.Parse()
	spec := Spec{Days: *days, JobsPerDay: 2, CardsPerJob: 2, FilesPerCard: *files, BigFiles: *bigFiles, Now: time.Now(),
		Dests: [2]string{"/Volumes/RAID", "/Volumes/SHUTTLE"}}
	if *pgOnly {
		// SQLite left out.
	} else if err := bench("SQLite", *dit, *db, *db+".facts", spec, *runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, "ditcatbench:", err)
		os.Exit(1)
	}
	if !*pg {
		return
	}
	if *pgFiles > 0 {
		spec.FilesPerCard = *pgFiles
	}
	if *pgDays > 0 {
		spec.Days = *pgDays
	}
	if *pgURL != "" {
		// A server of one's own: the catalog is built once and measured
		// by several binaries (before and after a change).
		if err := bench("PostgreSQL", *dit, *pgURL, *pgFacts, spec, *runs, *only); err != nil {
			fmt.Fprintln(os.Stderr, "ditcatbench:", err)
			os.Exit(1)
		}
		return
	}
	srv, err := pgtest.Start()
	if err != nil {
		fmt.Println("\nPostgreSQL: not measured:", err)
		return
	}
	defer srv.Stop()
	url, err := srv.NewDatabase("catbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ditcatbench:", err)
		return
	}
	if err := bench("PostgreSQL", *dit, url, "", spec, *runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, "ditcatbench:", err)
		srv.Stop()
		os.Exit(1)
	}
}

// build makes the catalog at db, or reuses it when its facts file (what
// it holds; "": none) is there and of today. A SQLite file is made anew;
// a PostgreSQL database is built into as it is.
func build(db, facts string, spec Spec) (*Generated, error) {
	if facts != "" {
		if b, err := os.ReadFile(facts); err == nil {
			var g Generated
			var today string
			// "clips": a catalog whose jobs have clips (for the ALE); one
			// built before is built again.
			if _, err := fmt.Sscanf(string(b), "%d %d %s %s %d %s clips", &g.BigJob, &g.SmallJob, &g.OneName, &g.Prefix, &g.Rows, &today); err == nil {
				g.Today, _ = time.ParseInLocation("2006-01-02", today, time.Local)
				if g.Today.Format("2006-01-02") == spec.Now.Format("2006-01-02") {
					fmt.Printf("catalog %s: reused (%d file rows)\n", db, g.Rows)
					return &g, nil
				}
			}
		}
	}
	if !catalog.IsPostgresURL(db) {
		os.Remove(db)
		os.Remove(facts)
		if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
			return nil, err
		}
	}
	cat, err := catalog.Open(db)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	last := start
	g, err := Generate(cat, spec, func(n int) {
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			fmt.Printf("  %d of %d file rows (%.0f s)\n", n, spec.Files(), time.Since(start).Seconds())
		}
	})
	if cerr := cat.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	fmt.Printf("catalog built: %d file rows, %d copies, in %.0f s\n", g.Rows, 2*g.Rows, time.Since(start).Seconds())
	if !catalog.IsPostgresURL(db) {
		if fi, err := os.Stat(db); err == nil {
			fmt.Printf("catalog file: %.0f MB\n", float64(fi.Size())/1e6)
		}
	}
	if facts != "" {
		os.WriteFile(facts, []byte(fmt.Sprintf("%d %d %s %s %d %s clips\n", g.BigJob, g.SmallJob, g.OneName, g.Prefix, g.Rows, g.Today.Format("2006-01-02"))), 0o644)
	}
	return g, nil
}

type measure struct {
	wall  time.Duration
	rssKB int64
	out   int // bytes written to stdout
}

// runCmd runs dit with args and measures it.
func runCmd(dit string, args ...string) (measure, error) {
	cmd := exec.Command(dit, args...)
	var n countWriter
	cmd.Stdout, cmd.Stderr = &n, os.Stderr
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start), out: int(n)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssKB = maxrssKB(ru)
	}
	if err != nil {
		return m, fmt.Errorf("dit %s: %w", strings.Join(args, " "), err)
	}
	return m, nil
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// bench builds (or reuses, see build) the catalog at db and measures
// every command.
func bench(label, dit, db, facts string, spec Spec, runs int, only string) error {
	fmt.Printf("\n== %s: %d days x %d jobs x %d cards x %d files + a %d-file job\n", label, spec.Days, spec.JobsPerDay,
		spec.CardsPerJob, spec.FilesPerCard, spec.BigFiles)
	g, err := build(db, facts, spec)
	if err != nil {
		return err
	}
	big, small := fmt.Sprint(g.BigJob), fmt.Sprint(g.SmallJob)
	cmds := []struct {
		name string
		args []string
	}{
		{"dit jobs", []string{"jobs"}},
		{"dit day", []string{"day", g.Today.Format("2006-01-02")}},
		{"dit find NAME (1 hit)", []string{"find", g.OneName}},
		{"dit find PREFIX (1,000 hits)", []string{"find", g.Prefix}},
		{"dit find PREFIX --limit 2000 (all)", []string{"find", g.Prefix, "--limit", "2000"}},
		{"dit job show (100k files)", []string{"job", "show", big}},
		{"dit job show (10k files)", []string{"job", "show", small}},
		{"dit job show --json (10k files)", []string{"job", "show", small, "--json"}},
		{"dit job show --json (100k files)", []string{"job", "show", big, "--json"}},
	}
	for _, f := range reportFormats {
		for _, j := range [][2]string{{"100k", big}, {"10k", small}} {
			cmds = append(cmds, struct {
				name string
				args []string
			}{reportName(f, j[0]), []string{"report", j[1], "--format", f}})
		}
	}
	fmt.Printf("%-36s %10s %10s %10s %12s\n", "command", "median", "min", "max", "peak RSS")
	rss := map[string]int64{}
	med := map[string]time.Duration{}
	for _, c := range cmds {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		var ms []measure
		for i := 0; i <= runs; i++ {
			m, err := runCmd(dit, append(c.args, "--db", db)...)
			if err != nil {
				return err
			}
			if i > 0 { // the first is the warm-up
				ms = append(ms, m)
			}
		}
		rss[c.name], med[c.name] = report(c.name, ms)
	}
	// Memory flat in the files: a job of 100,000 files against one of
	// 10,000, in the same run.
	pairs := [][2]string{{"dit job show (100k files)", "dit job show (10k files)"},
		{"dit job show --json (100k files)", "dit job show --json (10k files)"}}
	for _, f := range reportFormats {
		pairs = append(pairs, [2]string{reportName(f, "100k"), reportName(f, "10k")})
	}
	for _, p := range pairs {
		if rss[p[0]] > 0 && rss[p[1]] > 0 {
			fmt.Printf("peak RSS %s / %s: %.2f; median time %.2f\n", p[0], p[1], float64(rss[p[0]])/float64(rss[p[1]]),
				med[p[0]].Seconds()/med[p[1]].Seconds())
		}
	}
	if only == "" || strings.Contains("/api/status", only) {
		ms, err := serveStatus(dit, db, runs)
		if err != nil {
			return err
		}
		report("/api/status (dit serve)", ms)
	}
	return nil
}

// reportFormats are the formats of dit report measured, each on the
// 100,000-file and the 10,000-file job: their peak RSS and time ratios
// say whether memory and time are flat in the files.
var reportFormats = []string{"csv", "json", "html", "pdf", "ale"}

func reportName(format, files string) string {
	return fmt.Sprintf("dit report --format %s (%s)", format, files)
}

// report prints the median, min and max wall time and the largest peak
// RSS of ms, and returns that RSS (KiB) and the median.
func report(name string, ms []measure) (int64, time.Duration) {
	sort.Slice(ms, func(a, b int) bool { return ms[a].wall < ms[b].wall })
	var rss int64
	for _, m := range ms {
		rss = max(rss, m.rssKB)
	}
	med := ms[len(ms)/2].wall
	fmt.Printf("%-36s %9.3fs %9.3fs %9.3fs %9.1f MiB  (%d bytes out)\n", name, med.Seconds(), ms[0].wall.Seconds(),
		ms[len(ms)-1].wall.Seconds(), float64(rss)/1024, ms[0].out)
	return rss, med
}

// serveStatus starts dit serve on db, GETs /api/status runs+1 times (the
// first a warm-up) and stops it; every measure carries the server's peak
// RSS.
func serveStatus(dit, db string, runs int) ([]measure, error) {
	cmd := exec.Command(dit, "serve", "--db", db, "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n') // "dit serve: http://127.0.0.1:PORT/ (catalog ...)"
	if err != nil {
		return nil, fmt.Errorf("dit serve said nothing: %w", err)
	}
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[2], "http://") {
		return nil, fmt.Errorf("dit serve: unexpected first line %q", line)
	}
	base := strings.TrimSuffix(f[2], "/")
	go io.Copy(io.Discard, out)
	var ms []measure
	for i := 0; i <= runs; i++ {
		start := time.Now()
		resp, err := http.Get(base + "/api/status")
		if err != nil {
			return nil, err
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("/api/status: %s", resp.Status)
		}
		if i > 0 {
			ms = append(ms, measure{wall: time.Since(start), out: int(n)})
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		for i := range ms {
			ms[i].rssKB = maxrssKB(ru)
		}
	}
	return ms, nil
}

// maxrssKB is a child's peak RSS in KiB (Linux counts in KiB, macOS in
// bytes).
func maxrssKB(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
