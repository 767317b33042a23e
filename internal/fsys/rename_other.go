//go:build !linux && !darwin && !windows

package fsys

import "errors"

var errNoAtomicRename = errors.New("no atomic no-replace rename")

func renameNoReplace(o, n string) error { return errNoAtomicRename }
