package remote

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload/dest"
)

func init() {
	if cloud.Prefix != dest.RemotePrefix {
		panic("remote: cloud.Prefix " + cloud.Prefix + " is not dest.RemotePrefix " + dest.RemotePrefix)
	}
	dest.Register(kinder{})
}

// streamWorkers are the files streamed at once without a bandwidth
// limit.
const streamWorkers = 4

type kinder struct{}

// rcloneOf is the kind's configuration: cfg a *cloud.Rclone, or nil
// (rclone on PATH, the user's own configuration).
func rcloneOf(cfg any) (*cloud.Rclone, error) {
	switch r := cfg.(type) {
	case nil:
		return &cloud.Rclone{}, nil
	case *cloud.Rclone:
		if r == nil {
			return &cloud.Rclone{}, nil
		}
		return r, nil
	}
	return nil, fmt.Errorf("remote: configuration %T is not a *cloud.Rclone", cfg)
}

func (kinder) Parse(root string) error {
	_, err := cloud.Parse(root)
	return err
}

// Check is cloud.Rclone.CheckRead: the engine checks a job's remotes
// (and dit verify a job's copies) reading only. Whether the folder can
// be written to is the front end's check before a job (cloud.Rclone.Check
// through internal/assembly), which writes and removes an object of its
// own: dit verify, on keys that may only read, writes nothing.
func (kinder) Check(ctx context.Context, cfg any, root string) error {
	r, err := rcloneOf(cfg)
	if err != nil {
		return err
	}
	return r.CheckDestRead(ctx, root)
}

func (kinder) Open(root string, cfg any) (dest.Store, error) {
	r, err := rcloneOf(cfg)
	if err != nil {
		return nil, err
	}
	return Open(root, r)
}

// Open is the Store at root (rclone:REMOTE:PATH) reached with r (nil:
// rclone on PATH).
func Open(root string, r *cloud.Rclone) (dest.Store, error) {
	d, err := cloud.Parse(root)
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = &cloud.Rclone{}
	}
	return &store{root: root, d: d, r: r, lists: &listings{held: map[string]map[string]dest.Object{}}}, nil
}

// store is a remote destination.
type store struct {
	root  string
	d     cloud.Dest
	r     *cloud.Rclone
	lists *listings // shared with Once's
}

// listings are a store's folder listings, kept until it writes there.
type listings struct {
	mu   sync.Mutex
	held map[string]map[string]dest.Object // by folder
}

func (s *store) String() string { return s.d.String() }

func (s *store) List(ctx context.Context, dir string) (map[string]dest.Object, error) {
	s.lists.mu.Lock()
	held, ok := s.lists.held[dir]
	s.lists.mu.Unlock()
	if ok {
		return held, nil
	}
	objs, err := s.r.List(ctx, s.d, dir)
	if err != nil {
		return nil, err
	}
	held = make(map[string]dest.Object, len(objs))
	for rel, o := range objs {
		held[rel] = dest.Object{Size: o.Size, StorageMD5: o.ServerMD5()}
	}
	s.lists.mu.Lock()
	s.lists.held[dir] = held
	s.lists.mu.Unlock()
	return held, nil
}

// wrote forgets the listings of dir and of the folders it is in, or
// that are in it: the store is writing there.
func (s *store) wrote(dir string) {
	s.lists.mu.Lock()
	defer s.lists.mu.Unlock()
	for k := range s.lists.held {
		if k == "" || k == dir || strings.HasPrefix(dir, k+"/") || strings.HasPrefix(k, dir+"/") {
			delete(s.lists.held, k)
		}
	}
}

func (s *store) Put(ctx context.Context, src string, rels []string, dir string, progress func(dest.Progress)) error {
	s.wrote(dir)
	defer s.wrote(dir)
	var on func(cloud.Progress)
	if progress != nil {
		on = func(p cloud.Progress) {
			progress(dest.Progress{Bytes: p.Bytes, Try: p.Try, Tries: p.Tries, Err: p.Err})
		}
	}
	return s.r.Upload(ctx, src, rels, s.d, dir, on)
}

func (s *store) PutStream(ctx context.Context, rel string, size int64, body io.Reader, onErr func(string)) error {
	s.wrote(parent(rel))
	defer s.wrote(parent(rel))
	if onErr == nil {
		onErr = func(string) {}
	}
	return s.r.RcatWatch(ctx, s.d, rel, size, body, onErr)
}

func (s *store) Open(ctx context.Context, rel string, size int64) (io.ReadCloser, error) {
	return s.r.Open(ctx, s.d, rel, size)
}

func (s *store) Once() dest.Store {
	r := *s.r
	r.Tries = 1
	return &store{root: s.root, d: s.d, r: &r, lists: s.lists}
}

func (s *store) Streams() int {
	if s.r.BwLimit != "" {
		return 1
	}
	return streamWorkers
}

// Cause names an rclone error by its remote: "s3: connection refused".
func (s *store) Cause(err string) string {
	if err == "" {
		return ""
	}
	return s.d.Remote + ": " + err
}

func (s *store) Stage(prefix string) (string, error) { return cloud.MkdirTemp(prefix) }

// parent is the folder rel is in ("" the root).
func parent(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return ""
}
