package dest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/dit-org/dit/raid"
)

// Kind is a destination's kind.
type Kind int

const (
	// Folder is a folder on a mounted filesystem.
	Folder Kind = iota
	// Array is a blade of a dit array.
	Array
	// Remote is a folder of an rclone remote (rclone:REMOTE:PATH).
	Remote
)

func (k Kind) String() string {
	switch k {
	case Array:
		return "array"
	case Remote:
		return "remote"
	}
	return "folder"
}

// RemotePrefix starts a remote destination: rclone:REMOTE:PATH.
const RemotePrefix = "rclone:"

// IsRemote reports whether root is written as a remote destination. It
// reads nothing.
func IsRemote(root string) bool { return strings.HasPrefix(root, RemotePrefix) }

// KindOf is root's kind: a remote by how it is written, an array when
// root is one of a dit array's blades (which looks on disk), else a
// folder.
func KindOf(root string) Kind {
	switch {
	case IsRemote(root):
		return Remote
	case raid.IsBlade(root):
		return Array
	}
	return Folder
}

// The verify_algos prefixes of a remote's copy (followed by the
// algorithms compared: "s3-etag:md5").
const (
	// ByStorage: the storage's own checksum of the stored bytes (an S3
	// single-part object's ETag) equals the card's.
	ByStorage = "s3-etag:"
	// ByReadBack: the object read back from the remote hashes as the
	// card did.
	ByReadBack = "readback:"
	// ByHistory: the card's ASC MHL chain file, sent as the chain of
	// the card's history extended by this job's generation, verified as
	// an object of that history ("history:s3-etag:md5").
	ByHistory = "history:"
)

// Object is what a Store holds at a name.
type Object struct {
	Size int64
	// StorageMD5 is the MD5 of the stored bytes as the storage computed
	// it when they were written (hex, lower case), "" when the storage
	// gives none of its own (a value a client stored beside an object
	// never counts).
	StorageMD5 string
}

// Progress is how far a Put is.
type Progress struct {
	Bytes int64 // sent so far, every try counted
	// Try is the try under way (1: the first) of Tries; Err the last
	// error the transfer reported ("" none).
	Try, Tries int
	Err        string
}

// Store is a destination that holds whole objects (a remote): what the
// pipeline writes, lists, reads back and checks through. Names are
// slash-separated, relative to the destination's root. A Store is safe
// for concurrent use.
type Store interface {
	// String is the destination, cleaned (rclone:REMOTE:PATH, no
	// trailing slash), for messages.
	String() string
	// List is what the folder dir holds (a folder that is not there is
	// empty), by name relative to dir. A listing is kept until the Store
	// writes under dir (Put, PutStream): the map is shared, read it,
	// never change it.
	List(ctx context.Context, dir string) (map[string]Object, error)
	// ListDir is what the folder dir holds directly (not in its
	// folders), by name: listed anew at each call, never kept (a card's
	// run lists the folder its files are in as it comes to them).
	ListDir(ctx context.Context, dir string) (map[string]Object, error)
	// Put sends the files names lists (relative to the local folder src)
	// to dir, never over an object there (the caller verifies that one).
	// progress (nil: none) is told the bytes sent, tries and errors.
	Put(ctx context.Context, src string, names *Names, dir string, progress func(Progress)) error
	// PutStream sends body, size bytes, as the object rel; body ending
	// with an error (or short) leaves no object. onErr (nil: none) is
	// told each error the transfer reports while it goes on. An error
	// with a Fatal() bool method saying true is one that trying again
	// cannot mend (rclone's own word: its --max-transfer limit reached);
	// the caller may send any other again.
	PutStream(ctx context.Context, rel string, size int64, body io.Reader, onErr func(string)) error
	// Open reads the object rel (size bytes) back from the storage.
	Open(ctx context.Context, rel string, size int64) (io.ReadCloser, error)
	// Once is the same Store (its listings shared) with each call tried
	// once: a plan's look that may fail.
	Once() Store
	// Streams is how many PutStreams may run at once.
	Streams() int
	// Cause names a transfer error (the transfer's words, whole or
	// short) by the storage, short: "s3: connection refused"; "" for "".
	Cause(err string) string
	// Stage makes a local temporary folder for a history to send or one
	// read back (named prefix...; the caller removes it).
	Stage(prefix string) (string, error)
}

// Kinder is a remote kind: it checks, parses and opens the destinations
// written rclone:REMOTE:PATH. Its [Settings] are the front end's, which
// the kind interprets (nil: its defaults).
type Kinder interface {
	// Parse checks how root is written, reading nothing.
	Parse(root string) error
	// Check reads root before a job uses it (the storage there, its
	// folder readable), in words a front end shows.
	Check(ctx context.Context, s Settings, root string) error
	// Open is the Store at root.
	Open(root string, s Settings) (Store, error)
	// Defaults are the kind's settings when a front end gives none.
	Defaults() Settings
}

var (
	mu     sync.Mutex
	remote Kinder
)

// Register makes k the remote kind (internal/offload/dest/remote calls
// it when imported).
func Register(k Kinder) {
	mu.Lock()
	defer mu.Unlock()
	remote = k
}

func kind() (Kinder, error) {
	mu.Lock()
	defer mu.Unlock()
	if remote == nil {
		return nil, fmt.Errorf("this program has no remote destinations built in (import internal/offload/dest/remote)")
	}
	return remote, nil
}

// ParseRemote checks how the remote destination root is written.
func ParseRemote(root string) error {
	k, err := kind()
	if err != nil {
		return err
	}
	return k.Parse(root)
}

// CheckRemotes checks each remote destination among roots once, before
// a job uses it (s: the remote kind's settings).
func CheckRemotes(ctx context.Context, s Settings, roots []string) error {
	seen := map[string]bool{}
	for _, r := range roots {
		if !IsRemote(r) || seen[r] {
			continue
		}
		seen[r] = true
		k, err := kind()
		if err != nil {
			return err
		}
		if err := k.Check(ctx, s, r); err != nil {
			return err
		}
	}
	return nil
}

// OpenStore is the Store of the remote destination root.
func OpenStore(root string, s Settings) (Store, error) {
	k, err := kind()
	if err != nil {
		return nil, err
	}
	return k.Open(root, s)
}
