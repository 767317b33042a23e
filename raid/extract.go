package raid

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// The states of an ExtractResult.
const (
	ExtractDone    = "extracted" // written to the target folder and read back
	ExtractPresent = "present"   // the target held it already, with the same bytes
	ExtractFailed  = "failed"
)

// ExtractResult is one file restored by [Array.Extract].
type ExtractResult struct {
	Path  string `json:"path"`
	To    string `json:"to"`
	State string `json:"state"` // ExtractDone | ExtractPresent | ExtractFailed
	Error string `json:"error,omitempty"`
}

// Extract restores logical files (all, or those at or below the given
// paths) into the plain folder to: each file is written to a temp name,
// fsynced, renamed (never over an existing file), its folder fsynced, its
// mtime set, then read back from the medium and its xxh64 compared with
// the manifest. An identical existing file is reported present; a
// different one is an error, never overwritten.
func (a *Array) Extract(paths []string, to string, each func(ExtractResult)) error {
	to, err := filepath.Abs(to)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(to); err == nil && !fi.IsDir() {
		return invalidf("%s is not a folder: give a folder to extract to (it is created if missing)", to)
	}
	var sel []*Manifest
	for _, m := range a.Files() {
		if len(paths) == 0 {
			sel = append(sel, m)
			continue
		}
		for _, p := range paths {
			p = strings.Trim(path.Clean("/"+filepath.ToSlash(p)), "/")
			if p == "" || m.Path == p || strings.HasPrefix(m.Path, p+"/") {
				sel = append(sel, m)
				break
			}
		}
	}
	// Files whose every manifest replica is damaged cannot be restored:
	// each is a failure, never silently absent (one whose damaged
	// manifest no longer names a path counts for every selection).
	var lost []ExtractResult
	for _, id := range a.lostIDs() {
		p := a.lost[id]
		in := len(paths) == 0 || p == ""
		for _, q := range paths {
			q = strings.Trim(path.Clean("/"+filepath.ToSlash(q)), "/")
			in = in || q == "" || p == q || strings.HasPrefix(p, q+"/")
		}
		if in {
			lost = append(lost, ExtractResult{Path: cmp.Or(p, "(file id "+id+")"), State: ExtractFailed,
				Error: fmt.Sprintf("every replica of its manifest (file id %s) is damaged: it cannot be restored from the array; re-copy it from the card or a backup", id)})
		}
	}
	if len(sel) == 0 && len(lost) == 0 && len(paths) > 0 {
		return invalidf("nothing on the array matches %s: see dit array ls", strings.Join(paths, ", "))
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	failed := len(lost)
	for _, res := range lost {
		if each != nil {
			each(res)
		}
	}
	for _, m := range sel {
		res := a.extractOne(m, to)
		if res.State == ExtractFailed {
			failed++
		}
		if each != nil {
			each(res)
		}
	}
	// Folder mtimes last, deepest first.
	for i := len(sel) - 1; i >= 0; i-- {
		if m := sel[i]; m.Dir {
			t := time.Unix(0, m.MtimeNs)
			os.Chtimes(filepath.Join(to, filepath.FromSlash(m.Path)), t, t)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d file(s) could not be extracted", failed)
	}
	return nil
}

func (a *Array) extractOne(m *Manifest, to string) ExtractResult {
	res := ExtractResult{Path: m.Path}
	fail := func(err error) ExtractResult {
		res.State, res.Error = ExtractFailed, err.Error()
		return res
	}
	if err := checkLogicalPath(m.Path); err != nil {
		return fail(err)
	}
	dst := filepath.Join(to, filepath.FromSlash(m.Path))
	if rel, err := filepath.Rel(to, dst); err != nil || strings.HasPrefix(rel, "..") {
		return fail(fmt.Errorf("path %q leaves %s", m.Path, to))
	}
	res.To = dst
	if m.Dir {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fail(err)
		}
		res.State = ExtractDone
		return res
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fail(err)
	}
	if fi, err := os.Lstat(dst); err == nil {
		if fi.Mode().IsRegular() && fi.Size() == m.Size {
			if sum, err := hashOnDisk(dst); err == nil && sum == m.Hashes["xxh64"] {
				res.State = ExtractPresent
				return res
			}
		}
		return fail(fmt.Errorf("%s exists and differs: dit never overwrites; move it away", dst))
	}
	r := a.openManifest(m, true)
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.dit-tmp")
	if err != nil {
		return fail(err)
	}
	cleanup := func(err error) ExtractResult {
		tmp.Close()
		os.Remove(tmp.Name())
		return fail(err)
	}
	if _, err := io.Copy(tmp, r); err != nil {
		return cleanup(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return cleanup(err)
	}
	mt := time.Unix(0, m.MtimeNs)
	if err := os.Chtimes(tmp.Name(), mt, mt); err != nil {
		return cleanup(err)
	}
	if err := tmp.Sync(); err != nil {
		return cleanup(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	if _, err := os.Lstat(dst); err == nil {
		os.Remove(tmp.Name())
		return fail(fmt.Errorf("%s appeared during the extract: not overwritten", dst))
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	sum, err := hashOnDisk(dst)
	if err != nil {
		return fail(fmt.Errorf("re-reading %s: %w", dst, err))
	}
	if sum != m.Hashes["xxh64"] {
		return fail(fmt.Errorf("%s: xxh64 %s after extract, manifest says %s", dst, sum, m.Hashes["xxh64"]))
	}
	res.State = ExtractDone
	return res
}

// hashOnDisk reads a file back from its medium and returns its xxh64.
func hashOnDisk(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dropCache(f)
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	dropCache(f)
	return fmt.Sprintf("%016x", h.Sum64()), nil
}

var _ = bytes.Equal
var _ = errors.New
var _ fs.FileInfo
