package proxies

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/raid"
)

// source is a card's verified copy the proxies are made from: its folder
// on a destination, or its folder inside a dit array. Never the card.
type source interface {
	// read reads a sidecar (card-relative slash path).
	read(rel string) ([]byte, error)
	// head is a file's first bytes, for clips.Readable.
	head(rel string) []byte
	// input is what ffmpeg reads a file as: a path, or a URL.
	input(rel string) (string, error)
	// name says where a file is, for the catalog and errors.
	name(rel string) string
	close()
}

// folderSource is the card's folder on a folder destination.
type folderSource struct{ root string }

func (s folderSource) path(rel string) string           { return filepath.Join(s.root, filepath.FromSlash(rel)) }
func (s folderSource) read(rel string) ([]byte, error)  { return os.ReadFile(s.path(rel)) }
func (s folderSource) head(rel string) []byte           { return clips.Head(s.path(rel)) }
func (s folderSource) input(rel string) (string, error) { return s.path(rel), nil }
func (s folderSource) name(rel string) string           { return s.path(rel) }
func (folderSource) close()                             {}

// arraySource is the card's folder in a dit array, opened read-only (no
// lock: the job's writer may still hold it). ffmpeg reads a file through
// a loopback HTTP server that serves it from the array's checked reader
// with range requests, under a random token: the route the thumbnails
// take (reports/jobreport's clip source), so ffmpeg seeks as in a file.
type arraySource struct {
	a     *raid.Array
	blade string
	dir   string // the card's folder in the array, slash-separated

	mu    sync.Mutex
	srv   *http.Server
	base  string
	token string
}

func openArraySource(blade, dir string) (*arraySource, error) {
	a, err := raid.Open([]string{blade}, raid.OpenOptions{AllowDegraded: true})
	if err != nil {
		return nil, fmt.Errorf("the dit array at %s cannot be read: %w", blade, err)
	}
	return &arraySource{a: a, blade: blade, dir: dir}, nil
}

func (s *arraySource) open(rel string) (*raid.FileReader, error) {
	return s.a.OpenFile(path.Join(s.dir, rel), false)
}

func (s *arraySource) read(rel string) ([]byte, error) {
	f, err := s.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (s *arraySource) head(rel string) []byte {
	f, err := s.open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, 16)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}

func (s *arraySource) name(rel string) string {
	return "dit array " + s.blade + ": " + path.Join(s.dir, rel)
}

func (s *arraySource) input(rel string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("serving the array's clips to ffmpeg: %w", err)
		}
		tok := make([]byte, 16)
		rand.Read(tok)
		s.token = hex.EncodeToString(tok)
		s.base = "http://" + ln.Addr().String() + "/" + s.token + "/"
		s.srv = &http.Server{Handler: http.HandlerFunc(s.handle)}
		go s.srv.Serve(ln)
	}
	var segs []string
	for _, p := range strings.Split(rel, "/") {
		segs = append(segs, url.PathEscape(p))
	}
	return s.base + strings.Join(segs, "/"), nil
}

// handle serves one file of the card's folder, with range requests.
func (s *arraySource) handle(w http.ResponseWriter, r *http.Request) {
	rel, ok := strings.CutPrefix(r.URL.Path, "/"+s.token+"/")
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	f, err := s.open(rel)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, _ := f.Stat()
	http.ServeContent(w, r, path.Base(rel), fi.ModTime(), f)
}

func (s *arraySource) close() {
	s.mu.Lock()
	if s.srv != nil {
		s.srv.Close()
	}
	s.mu.Unlock()
	s.a.Close()
}
