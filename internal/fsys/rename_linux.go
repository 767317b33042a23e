package fsys

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

var errNoAtomicRename = errors.New("no atomic no-replace rename")

func renameNoReplace(o, n string) error {
	err := unix.Renameat2(unix.AT_FDCWD, o, unix.AT_FDCWD, n, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP):
		return errNoAtomicRename
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: o, New: n, Err: fs.ErrExist}
	}
	return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
}
