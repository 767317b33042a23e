package watch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/fsys"
)

// Volume is a mounted volume.
type Volume struct {
	Path   string // mount point
	Label  string // its name (the mount point's last element)
	Device string // the block device, "" when unknown
	FSType string
	// ID is the volume's identity while mounted: device and inode of its
	// root ("" when unknown).
	ID string
}

// Source lists the volumes mounted now.
type Source interface {
	List() ([]Volume, error)
}

// Change is a volume that appeared or went away.
type Change struct {
	Volume
	Gone bool
}

// Watch polls src every interval and sends what changed; the volumes
// there at the start come first as appeared. It stops when ctx ends.
func Watch(ctx context.Context, src Source, interval time.Duration) <-chan Change {
	out := make(chan Change)
	go func() {
		defer close(out)
		known := map[string]Volume{}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			vols, err := src.List()
			if err == nil {
				now := map[string]Volume{}
				for _, v := range vols {
					now[v.Path] = v
				}
				var changes []Change
				for p, v := range known {
					if n, ok := now[p]; !ok || (n.ID != v.ID && n.ID != "" && v.ID != "") {
						changes = append(changes, Change{Volume: v, Gone: true})
						delete(known, p)
					}
				}
				for p, v := range now {
					if _, ok := known[p]; !ok {
						changes = append(changes, Change{Volume: v})
						known[p] = v
					}
				}
				sort.Slice(changes, func(i, j int) bool {
					if changes[i].Gone != changes[j].Gone {
						return changes[i].Gone // what left first
					}
					return changes[i].Path < changes[j].Path
				})
				for _, c := range changes {
					select {
					case out <- c:
					case <-ctx.Done():
						return
					}
				}
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Dir is a folder whose subfolders are volumes (macOS /Volumes; tests).
type Dir string

// List lists the folders in d (not hidden ones, not symbolic links).
func (d Dir) List() ([]Volume, error) {
	ents, err := os.ReadDir(string(d))
	if err != nil {
		return nil, err
	}
	var out []Volume
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(string(d), e.Name())
		out = append(out, Volume{Path: p, Label: e.Name(), ID: rootID(p)})
	}
	return out, nil
}

func rootID(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fsys.VolumeID(fi)
}

// MountInfo lists the block-device mounts of a Linux mountinfo file
// (default /proc/self/mountinfo) outside the system's own mount points.
type MountInfo struct {
	File string
}

// systemMounts are never cards.
var systemMounts = map[string]bool{"/": true, "/boot": true, "/boot/efi": true, "/home": true, "/usr": true,
	"/var": true, "/opt": true, "/srv": true, "/tmp": true, "/nix": true, "/snap": true}

// List reads the mounts.
func (m MountInfo) List() ([]Volume, error) {
	file := m.File
	if file == "" {
		file = "/proc/self/mountinfo"
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Volume
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		v, ok := parseMountInfo(sc.Text())
		if !ok || systemMounts[v.Path] || !strings.HasPrefix(v.Device, "/dev/") ||
			strings.HasPrefix(v.Path, "/proc") || strings.HasPrefix(v.Path, "/sys") || strings.HasPrefix(v.Path, "/dev") ||
			strings.HasPrefix(v.Path, "/snap/") || strings.HasPrefix(v.Path, "/boot/") {
			continue
		}
		v.ID = rootID(v.Path)
		out = append(out, v)
	}
	return out, sc.Err()
}

// parseMountInfo reads one line of mountinfo: "36 35 98:0 /mnt1 /mnt2
// rw,noatime master:1 - ext3 /dev/root rw,errors=continue".
func parseMountInfo(line string) (Volume, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok {
		return Volume{}, false
	}
	f := strings.Fields(pre)
	g := strings.Fields(post)
	if len(f) < 5 || len(g) < 2 {
		return Volume{}, false
	}
	p := unescapeMount(f[4])
	return Volume{Path: p, Label: filepath.Base(p), FSType: g[0], Device: unescapeMount(g[1])}, true
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var n int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &n); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// System is the platform's volume source: mountinfo on Linux, /Volumes
// on macOS; on Windows none (List says so).
func System() Source {
	if runtime.GOOS == "windows" {
		return unsupported{}
	}
	if _, err := os.Stat("/proc/self/mountinfo"); err == nil {
		return MountInfo{}
	}
	return Dir("/Volumes")
}

// unsupported is the volume source where dit cannot see cards come and go.
type unsupported struct{}

func (unsupported) List() ([]Volume, error) {
	return nil, fmt.Errorf("dit watch cannot detect cards on %s: offload each card with dit offload and its drive letter (e.g. dit offload -d D:\\shuttle E:\\)", runtime.GOOS)
}
