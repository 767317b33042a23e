package fsys

import (
	"io/fs"
	"time"
)

// Identity is the identity of the file fi describes, as far as its
// medium tells it: device, inode, size, modification and change times
// ("dev:ino:size:mtime-ns:ctime-ns"); "" when fi does not carry a device,
// an inode and a change time (a dit array's files, Windows). Any write to
// the file, any change of its times (touch -r included) and any
// replacement under the same name changes it: a copy whose identity is
// the one recorded when it was verified still holds the bytes that were
// read back, with one exception, IdentityTick.
func Identity(fi fs.FileInfo) string { return identity(fi) }

// IdentityTick is how close together two changes of a file may be and
// leave it the same change time: kernels keep file times at a coarse
// clock (a few ms on Linux, 1 s on HFS+, 2 s on FAT). An identity taken
// within IdentityTick of the file's last change cannot vouch for a write
// that came right after it.
const IdentityTick = 2 * time.Second

// IdentityChanged is the file's change time (ctime) in an identity, and
// whether the identity has one.
func IdentityChanged(id string) (time.Time, bool) { return identityCtime(id) }
