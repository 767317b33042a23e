package dest

import (
	"fmt"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/raid"
)

// MountArrays opens every destination root that is a blade of a dit array
// and returns an FS that routes paths below those roots to the arrays (and
// the rest to base). The caller closes the arrays.
func MountArrays(base fsys.FS, roots []string, o raid.OpenOptions) (fsys.FS, []*raid.Array, error) {
	mux := fsys.NewMux(base)
	seen := map[string]string{}
	var arrays []*raid.Array
	closeAll := func() {
		for _, a := range arrays {
			a.Close()
		}
	}
	for _, root := range roots {
		if !raid.IsBlade(root) {
			continue
		}
		a, err := raid.Open([]string{root}, o)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("destination %s is a blade of a dit array, which cannot be opened: %w", root, err)
		}
		sb := a.Superblock()
		if other, dup := seen[sb.ArrayUUID]; dup {
			a.Close()
			closeAll()
			return nil, nil, Usagef("destinations %s and %s are blades of the same array: name one blade per array", other, root)
		}
		seen[sb.ArrayUUID] = root
		arrays = append(arrays, a)
		mux.Mount(root, fsys.NewArrayFS(a, root))
	}
	if len(arrays) == 0 {
		return base, nil, nil
	}
	return mux, arrays, nil
}

// UsageError is bad input (dit exits 2 on it: cmd/dit ExitUsage).
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Usagef is a [UsageError] with a message formatted as fmt.Sprintf does.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }
