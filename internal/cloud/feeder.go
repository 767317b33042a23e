package cloud

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// feeder is dit's own HTTP server on 127.0.0.1 that a daemon reads a
// streamed file from (operations/copyurl): each body is served once, at
// a path of a random token, with its Content-Length, so that rclone
// knows the size before it reads (one S3 part, as rclone rcat --size).
// A body that ends early or with an error aborts the response: rclone
// gets less than the length it was told, and its upload fails, leaving
// no object.
type feeder struct {
	url    string // http://127.0.0.1:PORT/
	srv    *http.Server
	mu     sync.Mutex
	bodies map[string]*feed
}

// feed is a body to serve.
type feed struct {
	body io.Reader
	size int64
	done chan struct{} // closed when it was served (whole or not)
	err  error         // the body's error, or the response's
	n    int64         // bytes served
}

func startFeeder() (*feeder, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &feeder{url: "http://" + l.Addr().String() + "/", bodies: map[string]*feed{}}
	f.srv = &http.Server{Handler: f}
	go f.srv.Serve(l)
	return f, nil
}

func (f *feeder) stop() { f.srv.Close() }

// add serves body (size bytes) once: its URL, the feed, and a func that
// forgets it (whether it was served or not).
func (f *feeder) add(body io.Reader, size int64) (string, *feed, func()) {
	token := randomHex(16)
	fd := &feed{body: body, size: size, done: make(chan struct{})}
	f.mu.Lock()
	f.bodies[token] = fd
	f.mu.Unlock()
	return f.url + token, fd, func() {
		f.mu.Lock()
		delete(f.bodies, token)
		f.mu.Unlock()
	}
}

func (f *feeder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimPrefix(r.URL.Path, "/")
	f.mu.Lock()
	fd := f.bodies[token]
	delete(f.bodies, token) // once
	f.mu.Unlock()
	if fd == nil || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	defer close(fd.done)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(fd.size, 10))
	w.WriteHeader(http.StatusOK)
	fd.n, fd.err = io.CopyN(w, fd.body, fd.size)
	if fd.err != nil {
		panic(http.ErrAbortHandler) // rclone reads less than the length: no object
	}
}
