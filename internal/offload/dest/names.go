package dest

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
)

// Names are the files a Put sends, written one a line to a file in a
// temporary folder of the Store's (its Stage) as a run decides them: a
// card's list of the files to send is never held in memory, whatever its
// number of files. Add them, then Put them, then Remove.
type Names struct {
	dir  string
	f    *os.File
	w    *bufio.Writer
	n    int
	err  error // the first write's
	done bool  // closed: Path readable
}

// NewNames is an empty list of names in a temporary folder of st's.
func NewNames(st Store) (*Names, error) {
	dir, err := st.Stage("dit-upload-")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, "names.txt"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Names{dir: dir, f: f, w: bufio.NewWriter(f)}, nil
}

// NamesOf is the list of rels, in a temporary folder of st's.
func NamesOf(st Store, rels []string) (*Names, error) {
	n, err := NewNames(st)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		n.Add(r)
	}
	return n, nil
}

// Add adds the slash-separated path rel (as rclone reads the list: a
// name holding a line break is not sent, and its copy fails as one not
// there after the upload).
func (n *Names) Add(rel string) {
	if n.err != nil {
		return
	}
	if n.done {
		n.err = errors.New("names: added after they were read")
		return
	}
	n.n++
	if _, err := n.w.WriteString(rel + "\n"); err != nil {
		n.err = err
	}
}

// Len is how many names were added.
func (n *Names) Len() int { return n.n }

// Path is the file of the names, one a line, written whole (no name can
// be added after), or the error of writing it.
func (n *Names) Path() (string, error) {
	if !n.done {
		n.done = true
		if err := n.w.Flush(); n.err == nil {
			n.err = err
		}
		if err := n.f.Close(); n.err == nil {
			n.err = err
		}
	}
	return n.f.Name(), n.err
}

// Remove removes the names' file and its folder.
func (n *Names) Remove() {
	if !n.done {
		n.done = true
		n.f.Close()
	}
	os.RemoveAll(n.dir)
}
