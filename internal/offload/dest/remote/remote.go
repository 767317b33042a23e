package remote

import (
	"context"
	"fmt"
	"io"
	"strconv"
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

// Settings are the remote kind's [dest.Settings]: the rclone the front
// end gives (nil: rclone on PATH with the user's own configuration),
// whose Config and BwLimit (dit's rate syntax, decimal: "20MB/s") a job
// records where it has none of its own, and runs with the job's (the
// limit in bytes, "20000000B", which rclone's binary units cannot
// change).
type Settings struct {
	Rclone *cloud.Rclone
}

// Recorded is the front end's rclone configuration file and upload limit.
func (s Settings) Recorded() (config, bwLimit string) {
	if s.Rclone == nil {
		return "", ""
	}
	return s.Rclone.Config, s.Rclone.BwLimit
}

// With is s's rclone with the job's configuration file and limit (in
// bytes/s, suffix B: rclone reads a bare number as KiB/s and its K, M, G
// as binary).
func (s Settings) With(config string, bwLimit int64) dest.Settings {
	var r cloud.Rclone
	if s.Rclone != nil {
		r = *s.Rclone
	}
	r.Config, r.BwLimit = config, ""
	if bwLimit > 0 {
		r.BwLimit = strconv.FormatInt(bwLimit, 10) + "B"
	}
	return Settings{Rclone: &r}
}

// Rclone is the rclone that settings s (the kind's, or nil) run: nil is
// rclone on PATH with the user's own configuration.
func Rclone(s dest.Settings) (*cloud.Rclone, error) {
	switch v := s.(type) {
	case nil:
		return &cloud.Rclone{}, nil
	case Settings:
		if v.Rclone == nil {
			return &cloud.Rclone{}, nil
		}
		return v.Rclone, nil
	}
	return nil, fmt.Errorf("remote: settings %T are not remote.Settings", s)
}

func (kinder) Defaults() dest.Settings { return Settings{} }

func (kinder) Parse(root string) error {
	_, err := cloud.Parse(root)
	return err
}

// Check is cloud.Rclone.CheckRead: the engine checks a job's remotes
// (and dit verify a job's copies) reading only. Whether the folder can
// be written to is the front end's check before a job (cloud.Rclone.Check
// through internal/assembly), which writes and removes an object of its
// own: dit verify, on keys that may only read, writes nothing.
func (kinder) Check(ctx context.Context, cfg dest.Settings, root string) error {
	r, err := Rclone(cfg)
	if err != nil {
		return err
	}
	return r.CheckDestRead(ctx, root)
}

func (kinder) Open(root string, cfg dest.Settings) (dest.Store, error) {
	r, err := Rclone(cfg)
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

func (s *store) ListDir(ctx context.Context, dir string) (map[string]dest.Object, error) {
	objs, err := s.r.ListDir(ctx, s.d, dir)
	if err != nil {
		return nil, err
	}
	held := make(map[string]dest.Object, len(objs))
	for name, o := range objs {
		held[name] = dest.Object{Size: o.Size, StorageMD5: o.ServerMD5()}
	}
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

func (s *store) Put(ctx context.Context, src string, names *dest.Names, dir string, progress func(dest.Progress)) error {
	if names.Len() == 0 {
		return nil
	}
	list, err := names.Path()
	if err != nil {
		return err
	}
	s.wrote(dir)
	defer s.wrote(dir)
	var on func(cloud.Progress)
	if progress != nil {
		on = func(p cloud.Progress) {
			progress(dest.Progress{Bytes: p.Bytes, Try: p.Try, Tries: p.Tries, Err: p.Err})
		}
	}
	return s.r.UploadList(ctx, src, list, s.d, dir, on)
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

// Cause names an rclone error by its remote, short (cloud.ShortError):
// "s3: connection refused".
func (s *store) Cause(err string) string {
	if err == "" {
		return ""
	}
	return s.d.Remote + ": " + cloud.ShortError(err)
}

func (s *store) Stage(prefix string) (string, error) { return cloud.MkdirTemp(prefix) }

// parent is the folder rel is in ("" the root).
func parent(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return ""
}
