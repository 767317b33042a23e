package names

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Paths longer than PATH_MAX (4096 bytes on Linux) cannot be given to one
// system call: these helpers go one folder at a time through os.Root
// (openat), as dit's own history reader does (ascmhl.OSStore).

// descend opens the folder holding rel (a slash path under r), creating the
// missing folders when mkdir; it returns that folder, rel's last element
// and a function closing what it opened.
func descend(r *os.Root, rel string, mkdir bool) (*os.Root, string, func(), error) {
	var opened []*os.Root
	closeAll := func() {
		for _, o := range opened {
			o.Close()
		}
	}
	els := strings.Split(rel, "/")
	for _, el := range els[:len(els)-1] {
		if mkdir {
			if err := r.Mkdir(el, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				closeAll()
				return nil, "", nil, err
			}
		}
		sub, err := r.OpenRoot(el)
		if err != nil {
			closeAll()
			return nil, "", nil, err
		}
		opened = append(opened, sub)
		r = sub
	}
	return r, els[len(els)-1], closeAll, nil
}

// writeCard creates each file of files under dir, its content its own
// path (so no two files are alike), folders as needed.
func writeCard(t *testing.T, dir string, files []string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	for _, rel := range files {
		parent, base, done, err := descend(root, rel, true)
		require.NoError(t, err, "%q", rel)
		err = parent.WriteFile(base, []byte(strings.Repeat("body of "+rel+"\n", 3)), 0o644)
		done()
		require.NoError(t, err, "%q", rel)
	}
}

// hashTree maps every regular file under dir (slash path) to its SHA-256,
// read by the test itself, one folder at a time.
func hashTree(dir string) (map[string][32]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := map[string][32]byte{}
	return out, hashFolder(root, "", out)
}

func hashFolder(r *os.Root, prefix string, out map[string][32]byte) error {
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, e := range ents {
		rel := prefix + e.Name()
		switch {
		case e.IsDir():
			sub, err := r.OpenRoot(e.Name())
			if err != nil {
				return err
			}
			err = hashFolder(sub, rel+"/", out)
			sub.Close()
			if err != nil {
				return err
			}
		case e.Type().IsRegular():
			b, err := r.ReadFile(e.Name())
			if err != nil {
				return err
			}
			out[rel] = sha256.Sum256(b)
		default:
			return errors.New(rel + ": neither a file nor a folder")
		}
	}
	return nil
}
