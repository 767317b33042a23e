// Package copysource reads a card's verified copy for the work that
// follows a copy (clip metadata and thumbnails in reports/jobreport,
// editorial proxies in internal/proxies): the card's folder on a folder
// destination, or its folder inside a dit array. Never the card, which
// may be formatted once it is safe. ffmpeg and ffprobe get a path, or for
// an array a URL of a loopback range server (Source.Input).
package copysource

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

// Source is a card's verified copy.
type Source interface {
	// Read reads a file whole, e.g. a sidecar (card-relative slash path).
	Read(rel string) ([]byte, error)
	// Head is a file's first bytes, for clips.Readable.
	Head(rel string) []byte
	// Input is what ffmpeg and ffprobe are given to read a file: a path,
	// or a URL.
	Input(rel string) (string, error)
	// Name says where a file is, for the catalog and errors.
	Name(rel string) string
	// Close ends the source (its server, the array).
	Close()
}

// Folder is the card's folder root on a folder destination.
func Folder(root string) Source { return folderSource{root: root} }

type folderSource struct{ root string }

func (s folderSource) path(rel string) string           { return filepath.Join(s.root, filepath.FromSlash(rel)) }
func (s folderSource) Read(rel string) ([]byte, error)  { return os.ReadFile(s.path(rel)) }
func (s folderSource) Head(rel string) []byte           { return clips.Head(s.path(rel)) }
func (s folderSource) Input(rel string) (string, error) { return s.path(rel), nil }
func (s folderSource) Name(rel string) string           { return s.path(rel) }
func (folderSource) Close()                             {}

// arraySource is the card's folder in a dit array. ffmpeg reads a file
// through a loopback HTTP server that serves it from the array's checked
// reader with range requests (so it seeks as in a file: a MOV's index at
// its end, a frame at one second), under a random token; the server
// lives as long as the source.
type arraySource struct {
	a     *raid.Array
	blade string
	dir   string // the card's folder in the array, slash-separated

	mu    sync.Mutex
	srv   *http.Server
	base  string
	token string
}

// OpenArray opens the dit array that blade belongs to, read-only (no
// lock: the job's writer may still hold it), and reads the card's folder
// dir (a slash path) in it.
func OpenArray(blade, dir string) (Source, error) {
	a, err := raid.Open([]string{blade}, raid.OpenOptions{AllowDegraded: true})
	if err != nil {
		return nil, fmt.Errorf("the dit array at %s cannot be read: %w", blade, err)
	}
	return &arraySource{a: a, blade: blade, dir: dir}, nil
}

func (s *arraySource) open(rel string) (*raid.FileReader, error) {
	return s.a.OpenFile(path.Join(s.dir, rel), false)
}

func (s *arraySource) Read(rel string) ([]byte, error) {
	f, err := s.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (s *arraySource) Head(rel string) []byte {
	f, err := s.open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	return clips.HeadOf(f)
}

func (s *arraySource) Name(rel string) string {
	return "dit array " + s.blade + ": " + path.Join(s.dir, rel)
}

func (s *arraySource) Input(rel string) (string, error) {
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

func (s *arraySource) Close() {
	s.mu.Lock()
	if s.srv != nil {
		s.srv.Close()
	}
	s.mu.Unlock()
	s.a.Close()
}
