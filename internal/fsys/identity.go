package fsys

import (
	"crypto/sha256"
	"fmt"
	"io/fs"

	"github.com/dit-org/dit/raid"
)

// Identity is the identity of the file fi describes, as far as its
// medium tells it; "" when it tells nothing (Windows). On Unix: device,
// inode, size, modification and change times ("dev:ino:size:mtime-ns:
// ctime-ns"): any write to the file, any change of its times (touch -r
// included) and any replacement under the same name changes it. A dit
// array's file: its array, file id, generation, size, time and the hash
// of its units' hashes ("array:..."), which any change of its bytes
// changes (a read checks every unit against them). A copy whose identity
// is the one recorded when it was verified still holds the bytes that
// were read back, short of a write and a restore of its times within the
// file system's clock tick of dit's own last change to it.
func Identity(fi fs.FileInfo) string {
	if m, ok := fi.Sys().(*raid.Manifest); ok {
		h := sha256.New()
		for _, u := range m.Units {
			h.Write(u[:])
		}
		return fmt.Sprintf("array:%s:%s:%d:%d:%d:%x", m.ArrayUUID, m.FileID, m.Generation, m.Size, m.MtimeNs, h.Sum(nil)[:8])
	}
	return identity(fi)
}
