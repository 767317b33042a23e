package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dit-org/dit/internal/cloud"
)

// The -resume mode measures how soon a resumed upload sends. Each round
// dit offloads the card straight to rclone:bench:shots/dit/resumeN
// (streamed) with --cloud-bwlimit (-bwlimit: slow enough to be killed
// part-way; dit's --throttle does not slow a streamed card, and a resume
// keeps the job's limit), through a timing proxy in front of the S3
// server (proxy.go: each request's arrival, first body byte and answer,
// by this process's monotonic clock). Once the server has received
// -kill-at of the card's bytes dit is killed (SIGKILL); once its rclone
// is gone too (the kernel kills it with dit), `dit offload --json
// --resume JOB` runs. Its figure: the time from the resume's start (just
// before its process is started) to the first body byte of an upload of
// footage arriving at the server (a PUT under the job's folder; dit's
// write check is not footage). rclone's own start is measured in the
// same round: `rclone rcd` started as dit starts it, until its "Serving
// remote control" line and until its first answer (core/version);
// `rclone version`'s whole run; a listing of the card's folder as dit
// lists it (cloud.Rclone.List: operations/list through the bench's own
// rclone rcd, started before it is timed). The test server's time answering the resume's listings
// of the card's folder is a figure of its own: rclone serve s3 over a
// folder hashes every object it lists, which a real S3 does not. The
// rclone processes dit starts are logged with their start times
// (countingRclone); -timeline prints, for each resume, those, every
// request the server saw and dit's events until the first byte.

// resumeRound is what one round measured.
type resumeRound struct {
	killedAt         float64 // the share of the card's bytes the server had received at the kill
	reported         float64 // dit's last progress event's share of the card's bytes copied
	firstByte, head  time.Duration
	firstRequest     time.Duration // the resume's first request at the server
	jobStarted       time.Duration // the resume's first line (job_started) on its stdout
	whole            time.Duration // the resume's run, start to exit
	rcdUp, rcdAnswer time.Duration // rclone rcd: its serving line, its first answer
	version          time.Duration // rclone version, start to exit
	list             listTiming    // a listing of the card's folder as dit lists it, through a running rclone rcd
	serverList       time.Duration // the server's answers to the resume's listings of the card's folder
	firstPath        string
	timeline         []string
}

func resumeBench(b bench, bwlimit string, killAt float64, rounds int, timeline bool) {
	rate := bwlimit
	if rate == "" { // the card sent in about 12 s: killed after 7 s or so
		rate = strconv.FormatInt(b.bytes/12, 10)
	}
	var rs []resumeRound
	for i := 1; i <= rounds; i++ {
		r := b.resumeRound(fmt.Sprintf("resume%d", i), rate, killAt)
		rs = append(rs, r)
		fmt.Printf("round %d: %d bytes, killed once the server had received %.0f %% of them (dit's last progress event: %.0f %% copied)\n", i, b.bytes, 100*r.killedAt, 100*r.reported)
		printResume("  ", func(f func(resumeRound) time.Duration) float64 { return f(r).Seconds() })
		if timeline {
			fmt.Printf("  timeline of the resume (first upload: %s):\n    %s\n", r.firstPath, strings.Join(r.timeline, "\n    "))
		}
	}
	fmt.Printf("resume, %d bytes, medians of %d rounds:\n", b.bytes, rounds)
	printResume("  ", func(f func(resumeRound) time.Duration) float64 {
		var v []float64
		for _, r := range rs {
			v = append(v, f(r).Seconds())
		}
		return median(v)
	})
}

// printResume prints a round's figures, or their medians: v gives one.
func printResume(indent string, v func(func(resumeRound) time.Duration) float64) {
	fmt.Printf("%sresume: first byte at the server %.3f s after its start (that PUT's headers %.3f s; its first request %.3f s; job_started %.3f s; done in %.1f s)\n", indent,
		v(func(r resumeRound) time.Duration { return r.firstByte }), v(func(r resumeRound) time.Duration { return r.head }),
		v(func(r resumeRound) time.Duration { return r.firstRequest }), v(func(r resumeRound) time.Duration { return r.jobStarted }),
		v(func(r resumeRound) time.Duration { return r.whole }))
	fmt.Printf("%srclone's own start: rclone rcd answering %.3f s (serving %.3f s), rclone version %.3f s; a listing of the card's folder through rclone rcd %.3f s (%.3f s to its first request)\n", indent,
		v(func(r resumeRound) time.Duration { return r.rcdAnswer }), v(func(r resumeRound) time.Duration { return r.rcdUp }),
		v(func(r resumeRound) time.Duration { return r.version }), v(func(r resumeRound) time.Duration { return r.list.whole }),
		v(func(r resumeRound) time.Duration { return r.list.toFirst }))
	fmt.Printf("%sthe test server's answer to the resume's listing of the card's folder: %.3f s (rclone serve s3 hashes every object it lists)\n", indent,
		v(func(r resumeRound) time.Duration { return r.serverList }))
	fmt.Printf("%sfirst byte minus rclone rcd's start: %.3f s (target: 1 s); less the test server's listing too: %.3f s\n", indent,
		v(func(r resumeRound) time.Duration { return r.firstByte - r.rcdAnswer }),
		v(func(r resumeRound) time.Duration { return r.firstByte - r.rcdAnswer - r.serverList }))
}

// bench is what the rounds share.
type bench struct {
	dit, real, card string
	bytes           int64
	env             []string // dit's: the counting rclone first on PATH, the remote on the proxy
	procs           string   // countingRclone's log
	proxy           *timingProxy
}

// resumeRound runs one round under the job name name.
func (b bench) resumeRound(name, rate string, killAt float64) resumeRound {
	var r resumeRound
	prefix := "/shots/dit/" + name + "/"
	start := time.Now()
	job, reported := b.killedOffload(name, prefix, rate, killAt)
	r.reported = reported
	r.killedAt = float64(b.proxy.uploaded(prefix, start)) / float64(b.bytes)
	os.Remove(b.procs)

	t0 := time.Now()
	evs := b.resume(job)
	if len(evs) > 0 {
		r.jobStarted = evs[0].at.Sub(t0)
	}
	r.whole = time.Since(t0)
	first, ok := b.proxy.firstUpload(prefix, t0)
	if !ok {
		log.Fatalf("ditcloudbench: the resume of job %s sent no footage to the server", job)
	}
	r.firstByte, r.head, r.firstPath = first.first.Sub(t0), first.at.Sub(t0), first.path
	if reqs := b.proxy.since(t0); len(reqs) > 0 {
		r.firstRequest = reqs[0].at.Sub(t0)
	}
	r.timeline = b.timeline(t0, first.first, evs)
	r.serverList = b.proxy.answering(t0, first.first, func(q request) bool {
		return q.method == http.MethodGet && strings.Contains(q.path, "prefix=dit%2F"+name+"%2F")
	})
	r.rcdUp, r.rcdAnswer = rcdStart(b.real, b.env)
	r.version = timed(func() { run(b.env, b.real, "version") })
	r.list = b.listTiming(cloud.Dest{Remote: "bench", Path: "shots/dit/" + name}, "A001")
	return r
}

// event is a line of dit's --json output, when the bench read it.
type event struct {
	at               time.Time
	typ, path, state string
	message          string
}

// resume runs dit offload --resume job and returns its events.
func (b bench) resume(job string) []event {
	cmd := exec.Command(b.dit, "offload", "--json", "--resume", job)
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	var evs []event
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct{ Type, Path, State, Message string }
		json.Unmarshal(sc.Bytes(), &ev)
		evs = append(evs, event{time.Now(), ev.Type, ev.Path, ev.State, ev.Message})
	}
	if err := cmd.Wait(); err != nil {
		log.Fatalf("ditcloudbench: dit offload --resume %s: %v\n%s", job, err, stderr.Bytes())
	}
	return evs
}

// listTiming is a listing of the folder dir of d as dit lists a card's
// folder (cloud.Rclone.List: operations/list through rclone rcd, the
// storage's ETags read from its log), through the proxy, the daemon
// started before: the call to its first request at the server, its last
// request's answer to the listing's end, and the whole listing.
type listTiming struct{ toFirst, afterLast, whole time.Duration }

func (b bench) listTiming(d cloud.Dest, dir string) listTiming {
	r := &cloud.Rclone{Bin: b.real, Env: b.env}
	ctx := context.Background()
	if _, err := r.Remotes(ctx); err != nil { // the daemon started
		log.Fatalf("ditcloudbench: rclone rcd: %v", err)
	}
	t0 := time.Now()
	if _, err := r.List(ctx, d, dir); err != nil {
		log.Fatalf("ditcloudbench: listing %s: %v", d.At(dir), err)
	}
	var l listTiming
	l.whole = time.Since(t0)
	reqs := b.proxy.since(t0)
	if len(reqs) == 0 {
		log.Fatalf("ditcloudbench: the listing of %s asked the server nothing", d.At(dir))
	}
	l.toFirst = reqs[0].at.Sub(t0)
	last := reqs[len(reqs)-1]
	l.afterLast = t0.Add(l.whole).Sub(last.done)
	return l
}

// killedOffload starts dit offload of the card at rate (its
// --cloud-bwlimit; "0" none), kills it once
// the server has received killAt of the card's bytes (the proxy's count,
// looked at every 5 ms: dit's progress events come once a second and
// count what dit has sent, not what arrived), waits until its rclone has
// gone too, and returns the job's id and the share of the card's bytes
// its last progress event reported copied.
func (b bench) killedOffload(name, prefix, rate string, killAt float64) (job string, reported float64) {
	args := []string{"offload", "--json", "--name", name, "-d", "rclone:bench:shots/dit", b.card}
	if rate != "0" { // 0: no limit (the card streamed 4 files at once)
		args = append(args, "--cloud-bwlimit", rate)
	}
	cmd := exec.Command(b.dit, args...)
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	// killed says once whether the watcher killed dit (false: dit ended
	// first); read after dit has ended, it is never read before the
	// watcher has said (a kill and dit's end race otherwise).
	killed, exited := make(chan bool, 1), make(chan struct{})
	go func() {
		for {
			select {
			case <-exited:
				killed <- false
				return
			case <-time.After(5 * time.Millisecond):
			}
			if float64(b.proxy.uploaded(prefix, start)) >= killAt*float64(b.bytes) {
				killed <- cmd.Process.Signal(syscall.SIGKILL) == nil
				return
			}
		}
	}()
	var id int64
	var said []string // dit's last events but its progress
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			JobID    int64  `json:"job_id"`
			Progress struct {
				Job struct {
					Bytes       int64 `json:"bytes"`
					BytesCopied int64 `json:"bytes_copied"`
				} `json:"job"`
			} `json:"progress"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		id = ev.JobID
		if p := ev.Progress.Job; ev.Type == "progress" && p.Bytes > 0 {
			reported = float64(p.BytesCopied) / float64(p.Bytes)
		} else if ev.Type != "progress" {
			if said = append(said, sc.Text()); len(said) > 5 {
				said = said[1:]
			}
		}
	}
	cmd.Wait()
	close(exited)
	if !<-killed {
		log.Fatalf("ditcloudbench: dit offload %s ended before the server received %.0f %% of the card (-bwlimit lower?)\n%s\ndit's last events:\n%s", name, 100*killAt, stderr.Bytes(), strings.Join(said, "\n"))
	}
	if id == 0 {
		log.Fatalf("ditcloudbench: dit offload %s was killed before it said its job", name)
	}
	for rclonesOf(b.proxy.URL) > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	return strconv.FormatInt(id, 10), reported
}

// timeline are the rclone processes dit started, the requests the
// server saw and dit's events (evs) from t0 until the first byte at
// end, in order of time.
func (b bench) timeline(t0, end time.Time, evs []event) []string {
	type ev struct {
		at   time.Time
		line string
	}
	var lines []ev
	for _, p := range processStarts(b.procs) {
		if !p.at.Before(t0) && !p.at.After(end) {
			lines = append(lines, ev{p.at, fmt.Sprintf("%8.3f s  rclone %s started", p.at.Sub(t0).Seconds(), p.sub)})
		}
	}
	for _, r := range b.proxy.since(t0) {
		if !r.at.After(end) {
			lines = append(lines, ev{r.at, r.line(t0)})
		}
	}
	for _, e := range evs {
		if !e.at.After(end) && e.typ != "progress" {
			lines = append(lines, ev{e.at, fmt.Sprintf("%8.3f s  dit: %s", e.at.Sub(t0).Seconds(), strings.Join(strings.Fields(e.typ+" "+e.path+" "+e.state+" "+e.message), " "))})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at.Before(lines[j].at) })
	var out []string
	for _, e := range lines {
		out = append(out, e.line)
	}
	return out
}

// rclonesOf is the number of rclone processes running against the
// server at endpoint (in their environment).
func rclonesOf(endpoint string) int {
	procs, _ := os.ReadDir("/proc")
	n := 0
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("_ENDPOINT="+endpoint+"\x00")) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if filepath.Base(string(bytes.Split(cmdline, []byte{0})[0])) != "rclone" {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // exited, not yet reaped
		}
		n++
	}
	return n
}

func timed(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}

// rcdStart starts rclone rcd as dit starts it (daemon.go: -vv, its log
// read) and returns
// the time until it says where it serves and until it answers its
// first call (core/version); then it stops it.
func rcdStart(real string, env []string) (up, answer time.Duration) {
	user, pass := "bench", strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(real, "rcd", "-vv", "--log-file=", "--use-json-log=false", "--log-format", "date,time", "--syslog=false", "--rc-addr", "127.0.0.1:0", "--rc-serve", "--s3-upload-cutoff", cloud.UploadCutoff, "--s3-no-check-bucket", "--retries", "1")
	cmd.Env = append(append([]string(nil), env...), "RCLONE_RC_USER="+user, "RCLONE_RC_PASS="+pass)
	errp, err := cmd.StderrPipe()
	if err != nil {
		log.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(errp)
	var url string
	for sc.Scan() {
		if m := servingRe.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		log.Fatal("ditcloudbench: rclone rcd did not say where it serves")
	}
	up = time.Since(t0)
	go io.Copy(io.Discard, errp)
	req, _ := http.NewRequest(http.MethodPost, url+"core/version", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(user, pass)
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		log.Fatalf("ditcloudbench: rclone rcd: core/version: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		log.Fatalf("ditcloudbench: rclone rcd: core/version: %s", resp.Status)
	}
	return up, time.Since(t0)
}

var servingRe = regexp.MustCompile(`Serving remote control on \[?(http://127\.0\.0\.1:[0-9]+/)`)

// processStart is an rclone process countingRclone logged.
type processStart struct {
	sub string
	at  time.Time
}

// processStarts reads countingRclone's log: a line per run, its
// subcommand and its start (Unix seconds, to the nanosecond).
func processStarts(logf string) []processStart {
	b, _ := os.ReadFile(logf)
	var out []processStart
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		sec, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		out = append(out, processStart{f[0], time.Unix(0, int64(sec*1e9))})
	}
	return out
}
