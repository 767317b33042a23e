package proxies

import (
	"strings"

	"github.com/dit-org/dit/raid/mountplace"
)

// arraySourcePrefix begins the source a proxy records when ffmpeg read
// the clip from a copy in a dit array (copysource's array source names
// it "dit array BLADE: PATH").
const arraySourcePrefix = "dit array "

// SourcePath is a proxy's recorded source (catalog.Proxy.Source: the
// verified copy ffmpeg read) as a path a person or an editing suite can
// open: a copy in a dit array below the array's mount point, or its
// mount place when it is not mounted (res, raid/mountplace); any other
// source (a folder's copy) as it is recorded.
func SourcePath(res *mountplace.Resolver, source string) string {
	rest, ok := strings.CutPrefix(source, arraySourcePrefix)
	if !ok {
		return source
	}
	// The blade's path may itself hold ": ": the first split whose head
	// is a blade of an array is the one.
	for i := 0; ; {
		j := strings.Index(rest[i:], ": ")
		if j < 0 {
			return source
		}
		i += j
		if res.PlaceOf(rest[:i]) != nil {
			p, _ := res.Path(rest[:i], rest[i+2:])
			return p
		}
		i += 2
	}
}
