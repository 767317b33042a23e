package fsys

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

var errNoAtomicRename = errors.New("no atomic no-replace rename")

func renameNoReplace(o, n string) error {
	err := unix.RenamexNp(o, n, unix.RENAME_EXCL)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL):
		return errNoAtomicRename
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: o, New: n, Err: fs.ErrExist}
	}
	return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
}
