package fsys

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openDir opens a folder to list it.
func openDir(name string) (*os.File, error) { return os.Open(name) }

func openReadOnly(name string) (*os.File, error) { return os.Open(name) }

// ErrCachedReadBack: Windows has no call that drops a file's pages from
// the system file cache, so a read-back that cannot open the copy with
// FILE_FLAG_NO_BUFFERING (see direct_windows.go) would read the cache,
// not the medium. dit fails such a verification rather than pass it.
var ErrCachedReadBack = errors.New("cannot read back past the Windows file cache here (the filesystem refuses FILE_FLAG_NO_BUFFERING): the verification would read the cache, not the medium")

// dropCache cannot drop cached pages on Windows: it says so.
func dropCache(*os.File) error { return ErrCachedReadBack }

func dropRange(*os.File, int64, int64) {}

// freeSpace reports the bytes available to this user on name's volume and
// the volume's serial number as its id.
func freeSpace(name string) (uint64, string, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, "", err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, "", &os.PathError{Op: "GetDiskFreeSpaceEx", Path: name, Err: err}
	}
	return avail, volumeSerial(name), nil
}

// volumeSerial is "vol:SERIAL" of the volume holding name, or "path:ROOT"
// when Windows does not tell it.
func volumeSerial(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return ""
	}
	root := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(p, &root[0], uint32(len(root))); err != nil {
		return "path:" + filepath.VolumeName(abs)
	}
	var serial uint32
	if err := windows.GetVolumeInformation(&root[0], nil, 0, &serial, nil, nil, nil, 0); err != nil {
		return "path:" + windows.UTF16ToString(root)
	}
	return fmt.Sprintf("vol:%08x", serial)
}

// openForSync opens an existing file to fsync (FlushFileBuffers) it:
// Windows needs a handle open for writing, else read-only is tried.
func openForSync(name string) (*os.File, error) {
	if f, err := os.OpenFile(name, os.O_WRONLY, 0); err == nil {
		return f, nil
	}
	return openReadOnly(name)
}
