package cloud

import (
	"bufio"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The daemon logs at debug level (rclone rcd -vv): the S3 listing
// responses a listing asks rclone to dump (listing.go) are debug lines,
// and so is each rc call rclone is asked ("rc: "rc/noop": with
// parameters map[...]"), which is how dit marks a point in the log
// (mark). logWatch reads it all as it comes, and keeps none of the debug
// lines: they carry the remote's settings (its keys too) and the objects'
// listings, for no one to see.

// logWatch reads the daemon's log: it finds where it listens, keeps the
// last lines that are not debug output, tells each watcher of the error
// and notice lines that name its object, sees the marks dit has rclone
// log, and hands each capture the S3 listing responses logged while it is
// on.
type logWatch struct {
	pipe  *os.File      // the read end of rclone's standard error
	ended chan struct{} // closed when the log has ended (rclone exited)
	read  atomic.Int64  // bytes of the lines read

	mu       sync.Mutex
	lines    []string
	next     int
	watchers map[int]watcher
	marks    map[string]chan struct{} // closed when a line with the tag is read
	captures map[*capture]bool
}

func newLogWatch(pipe *os.File) *logWatch {
	return &logWatch{pipe: pipe, ended: make(chan struct{}), watchers: map[int]watcher{}, marks: map[string]chan struct{}{},
		captures: map[*capture]bool{}}
}

// watcher is told of the log lines that name the object name.
type watcher struct {
	name string
	on   func(string)
}

// logEntryRe is the start of a line rclone logs: its date and time, and
// its level; a line without it goes on the one before (an error's
// "caused by: ...", a dump's headers and body).
var logEntryRe = regexp.MustCompile(`^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? +([A-Z]+) *:`)

// maxLogLine is the longest line read whole (an S3 listing page on one
// line is at most a few MB); the rest of a longer one is skipped, and it
// is no listing response (a variable for the tests).
var maxLogLine = 32 << 20

// readLine is the next line of br without its end (what it had of it
// up to maxLogLine), and the bytes it took of br: more than maxLogLine,
// it was cut.
func readLine(br *bufio.Reader) (string, int, error) {
	var buf []byte
	n := 0
	for {
		part, err := br.ReadSlice('\n')
		n += len(part)
		if len(buf)+len(part) <= maxLogLine {
			buf = append(buf, part...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && n == 0 {
			return "", 0, err
		}
		return strings.TrimRight(string(buf), "\r\n"), n, nil
	}
}

func (l *logWatch) scan(url chan<- string) {
	defer close(l.ended)
	br := bufio.NewReaderSize(l.pipe, 64<<10)
	found := false
	// told is the last error or notice line told and whom it was told
	// to, for the lines that go on it; debug: the entry being read is
	// debug output.
	var told struct {
		msg string
		to  []func(string)
	}
	debug := false
	var page pageReader
	for {
		line, n, err := readLine(br)
		if err != nil {
			return
		}
		l.read.Add(int64(n))
		cut := n > maxLogLine
		if !found {
			if m := servingRe.FindStringSubmatch(line); m != nil {
				found = true
				url <- m[1]
			}
		}
		m := logEntryRe.FindStringSubmatch(line)
		if m != nil {
			debug = m[1] == "DEBUG"
		}
		l.mu.Lock()
		if !debug {
			if l.lines = append(l.lines, line); len(l.lines) > 50 {
				l.lines = l.lines[len(l.lines)-50:]
			}
		}
		l.see(line)
		if len(l.captures) > 0 {
			if body := page.line(line, m != nil, cut); body != nil {
				for c := range l.captures {
					c.add(body)
				}
			}
		} else {
			page = pageReader{}
		}
		var tell []func(string)
		msg := line
		switch {
		case m == nil && len(told.to) > 0:
			// The error's cause on a line of its own ("caused by: ...
			// connection refused"): told again with it, which is what a
			// person needs to read.
			told.msg += "\n" + line
			msg, tell = told.msg, told.to
		case m != nil && (m[1] == "ERROR" || m[1] == "NOTICE"):
			for _, w := range l.watchers {
				if strings.Contains(line, " "+w.name+": ") {
					tell = append(tell, w.on)
				}
			}
			told.msg, told.to = line, tell
		default:
			told.msg, told.to = "", nil
		}
		l.mu.Unlock()
		for _, f := range tell {
			f(ShortError(msg))
		}
	}
}

// see closes the marks, and turns the captures on and off, whose tags
// line holds.
func (l *logWatch) see(line string) {
	for tag, ch := range l.marks {
		if strings.Contains(line, tag) {
			close(ch)
			delete(l.marks, tag)
		}
	}
	for c := range l.captures {
		switch {
		case strings.Contains(line, c.start):
			c.on = true
		case strings.Contains(line, c.end):
			c.on = false
		}
	}
}

// pageReader gathers an S3 listing response (a ListBucketResult) from
// the lines of the dump of an HTTP response: its body, from
// "<ListBucketResult" to "</ListBucketResult>", one line or many. A new
// log entry, or a line cut, ends a page not finished: it is dropped.
type pageReader struct {
	body []byte
	in   bool
}

// line reads the next line (entry: it begins a log entry; cut: it was
// longer than maxLogLine) and returns a page it finished, or nil.
func (p *pageReader) line(line string, entry, cut bool) []byte {
	if entry || cut {
		p.in, p.body = false, nil
	}
	if !p.in {
		i := strings.Index(line, "<ListBucketResult")
		if i < 0 || cut {
			return nil
		}
		p.in, line = true, line[i:]
	}
	p.body = append(append(p.body, line...), '\n')
	if !strings.Contains(line, "</ListBucketResult>") {
		return nil
	}
	body := p.body
	p.in, p.body = false, nil
	return body
}

// capture is what a listing reads of the log: the ETags of the keys
// under prefix in the listing responses logged after the line with the
// tag start and before the one with the tag end.
type capture struct {
	prefix     string
	start, end string
	on         bool
	etags      map[string]string
}

func (c *capture) add(body []byte) {
	if !c.on {
		return
	}
	for k, v := range listedETags(body, c.prefix) {
		c.etags[k] = v
	}
}

// capture begins a capture of the listing responses of the keys under
// prefix, off until the log says its start tag; stop ends it and returns
// what it read.
func (l *logWatch) capture(prefix string) (c *capture, stop func() map[string]string) {
	c = &capture{prefix: prefix, start: "dit-list-start-" + randomHex(8), end: "dit-list-end-" + randomHex(8), etags: map[string]string{}}
	l.mu.Lock()
	l.captures[c] = true
	l.mu.Unlock()
	return c, func() map[string]string {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.captures, c)
		return c.etags
	}
}

// expect returns a channel closed once a line holding tag is read, and
// a func that forgets it.
func (l *logWatch) expect(tag string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	l.mu.Lock()
	l.marks[tag] = ch
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.marks, tag)
		l.mu.Unlock()
	}
}

// markWait is how long dit waits for rclone's log to say a mark.
var markWait = 10 * time.Second

// mark has the daemon log tag (an rc/noop call, which rclone logs with
// its parameters at debug level) and waits until that line is read: every
// line rclone logged before it, each call answered before it included,
// has been read too. false: the mark was not read (rclone gone, or no
// such line in time).
func (d *daemon) mark(ctx context.Context, tag string) bool {
	seen, forget := d.logs.expect(tag)
	defer forget()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markWait)
	defer cancel()
	if err := d.call(ctx, "rc/noop", map[string]any{"dit_log_mark": tag}, nil); err != nil {
		// Gone: its log ends, read whole.
		select {
		case <-d.logs.ended:
		case <-ctx.Done():
		}
		return false
	}
	select {
	case <-seen:
		return true
	case <-d.logs.ended:
		return false
	case <-ctx.Done():
		return false
	}
}

// settle waits until every line the daemon has logged so far is read (a
// call that failed returns once rclone logged why, and its watcher is told
// of that line before it is gone, as a process's is before it exits).
func (d *daemon) settle(ctx context.Context) { d.mark(ctx, "dit-settle-"+randomHex(8)) }

// watch tells on (nil: nothing) of the lines naming the object name
// until the returned func is called.
func (l *logWatch) watch(name string, on func(string)) func() {
	if on == nil {
		return func() {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	id := l.next
	l.watchers[id] = watcher{name, on}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.watchers, id)
	}
}

// last are the last n lines of the log that are not debug output, joined.
func (l *logWatch) last(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return lastLines(strings.Join(l.lines, "\n"), n)
}
