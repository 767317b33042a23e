package fsys

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

var errNoAtomicRename = errors.New("no atomic no-replace rename")

// renameNoReplace is MoveFileEx without MOVEFILE_REPLACE_EXISTING: atomic,
// and it fails with ERROR_ALREADY_EXISTS (errors.Is fs.ErrExist) when
// newname exists.
func renameNoReplace(o, n string) error {
	from, err := windows.UTF16PtrFromString(o)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(n)
	if err != nil {
		return err
	}
	if err := windows.MoveFileEx(from, to, 0); err != nil {
		return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
	}
	return nil
}
