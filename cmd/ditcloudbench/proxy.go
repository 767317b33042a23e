package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/cloud"
)

// timingProxy is an HTTP proxy on 127.0.0.1 in front of the S3 server
// that notes each request it passes on: when its headers arrived, when
// the first byte of its body did, how many bytes it carried and when
// its answer was passed on, by this
// process's clock (monotonic, to the microsecond). rclone signs each
// request for the Host it sends to, the proxy's address: the proxy
// passes the Host on as it came, so the server checks the same
// signature.
type timingProxy struct {
	URL string // http://127.0.0.1:PORT
	srv *http.Server

	mu   sync.Mutex
	reqs []*request
}

// request is one request the proxy passed on.
type request struct {
	at, first    time.Time // headers arrived; first body byte (zero: none)
	done         time.Time // its answer passed on whole (zero: not yet)
	method, path string    // path with its query
	body         int64     // body bytes read so far
}

// startProxy starts a timing proxy in front of the server at target.
func startProxy(target string) (*timingProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u) // keeps the request's Host
	rp.Transport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, ExpectContinueTimeout: time.Second}
	rp.ErrorLog = log.New(io.Discard, "", 0) // the killed dit's requests, cut short
	p := &timingProxy{URL: "http://" + l.Addr().String()}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := &request{at: time.Now(), method: r.Method, path: r.URL.RequestURI()}
		p.mu.Lock()
		p.reqs = append(p.reqs, rq)
		p.mu.Unlock()
		if r.ContentLength != 0 {
			r.Body = &timedBody{r: r.Body, rq: rq, mu: &p.mu}
		}
		rp.ServeHTTP(w, r)
		p.mu.Lock()
		rq.done = time.Now()
		p.mu.Unlock()
	})}
	go p.srv.Serve(l)
	return p, nil
}

// timedBody notes the time of a request's first body byte and counts them.
type timedBody struct {
	r  io.ReadCloser
	rq *request
	mu *sync.Mutex
}

func (b *timedBody) Read(buf []byte) (int, error) {
	n, err := b.r.Read(buf)
	if n > 0 {
		now := time.Now()
		b.mu.Lock()
		if b.rq.first.IsZero() {
			b.rq.first = now
		}
		b.rq.body += int64(n)
		b.mu.Unlock()
	}
	return n, err
}

func (b *timedBody) Close() error { return b.r.Close() }

// since are copies of the requests whose headers arrived at t or later.
func (p *timingProxy) since(t time.Time) []request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []request
	for _, r := range p.reqs {
		if !r.at.Before(t) {
			out = append(out, *r)
		}
	}
	return out
}

// upload: r is a PUT of footage under prefix (the bucket's path, e.g.
// /shots/dit/round1/) that carried bytes: not dit's write check, nor a
// server-side copy (no body).
func (r request) upload(prefix string) bool {
	return r.method == http.MethodPut && strings.HasPrefix(r.path, prefix) && !r.first.IsZero() &&
		!strings.Contains(r.path, cloud.WriteCheckPrefix)
}

// uploaded is the body bytes of the uploads under prefix received since t.
func (p *timingProxy) uploaded(prefix string, t time.Time) int64 {
	var n int64
	for _, r := range p.since(t) {
		if r.upload(prefix) {
			n += r.body
		}
	}
	return n
}

// firstUpload is the first request since t that is an upload under
// prefix (by the time of its first body byte); ok false if none.
func (p *timingProxy) firstUpload(prefix string, t time.Time) (first request, ok bool) {
	for _, r := range p.since(t) {
		if r.upload(prefix) && (!ok || r.first.Before(first.first)) {
			first, ok = r, true
		}
	}
	return first, ok
}

// answering is the time the server took to answer the requests since
// t0 that match and arrived before end, one after the other.
func (p *timingProxy) answering(t0, end time.Time, match func(request) bool) time.Duration {
	var d time.Duration
	for _, r := range p.since(t0) {
		if r.at.Before(end) && !r.done.IsZero() && match(r) {
			d += r.done.Sub(r.at)
		}
	}
	return d
}

// line is the request as a timeline line, its times from t0.
func (r request) line(t0 time.Time) string {
	s := fmt.Sprintf("%8.3f s  %-6s %s", r.at.Sub(t0).Seconds(), r.method, r.path)
	if !r.first.IsZero() {
		s += fmt.Sprintf(" (first body byte at %.3f s, %d bytes)", r.first.Sub(t0).Seconds(), r.body)
	} else if !r.done.IsZero() {
		s += fmt.Sprintf(" (answered at %.3f s)", r.done.Sub(t0).Seconds())
	}
	return s
}

func (p *timingProxy) stop() { p.srv.Close() }
