package jobreport

import (
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid/mountplace"
)

// ArrayPlace is where the files of a dit array destination open for
// other programs (raid/mountplace): its mount point when it was mounted
// as the report was made, else its mount place and the command that
// mounts the array there.
type ArrayPlace struct {
	Name         string `json:"name"`
	Dir          string `json:"dir"`
	Mounted      bool   `json:"mounted"`
	MountCommand string `json:"mount_command"`
}

// Note is the place for a person: "mounted at DIR" or "not mounted: dit
// array mount BLADE (mounts it at DIR)".
func (a *ArrayPlace) Note() string {
	if a.Mounted {
		return "array " + a.Name + " mounted at " + a.Dir
	}
	return "array " + a.Name + " not mounted: " + a.MountCommand + " (mounts it at " + a.Dir + ")"
}

// resolver is the report's, or a new one for a Report made by hand.
func (r *Report) resolver() *mountplace.Resolver {
	if r.places != nil {
		return r.places
	}
	return mountplace.NewResolver()
}

// arrayPlace is where the array destination root is a blade of opens;
// nil for a folder or cloud destination.
func (r *Report) arrayPlace(root string) *ArrayPlace {
	if cloud.IsDest(root) {
		return nil
	}
	p := r.resolver().PlaceOf(root)
	if p == nil {
		return nil
	}
	return &ArrayPlace{Name: p.Name(), Dir: p.Dir, Mounted: p.Mounted, MountCommand: p.MountCommand()}
}

// openPath is rel (a slash path) below destination root as a path a
// person or an editing suite can open: root/rel for a folder; for a
// blade of a dit array, below the array's mount point (or mount place);
// a cloud destination's location as the catalog names it.
func (r *Report) openPath(root, rel string) string {
	if cloud.IsDest(root) {
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	p, _ := r.resolver().Path(root, rel)
	return p
}

// displayOpen is a location as dit's summaries name it (offload's
// DisplayPath: array:BLADE//PATH for a folder in a dit array) as a path
// to open: below the array's mount point or mount place; any other as
// it is.
func (r *Report) displayOpen(p string) string {
	if !strings.HasPrefix(p, offload.ArrayPathPrefix) {
		return p
	}
	blade, rel, ok := offload.SplitArrayPath(p)
	if !ok {
		return p
	}
	return r.openPath(blade, rel)
}
