package cloud

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Remotes are the names of the remotes rclone's configuration holds
// (rclone listremotes: the configuration file's and those defined by
// RCLONE_CONFIG_<NAME>_* variables), without their colons, sorted.
func (r *Rclone) Remotes(ctx context.Context) ([]string, error) {
	out, err := r.run(ctx, "listremotes")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSuffix(strings.TrimSpace(l), ":"); l != "" {
			names = append(names, l)
		}
	}
	slices.Sort(names)
	return names, nil
}

// CheckDest checks a destination written rclone:REMOTE:PATH before it is
// used: written right, rclone installed, REMOTE one of the configuration's
// remotes (else the error names those there are), and its folder
// readable (Check). Each error names s and what to do.
func (r *Rclone) CheckDest(ctx context.Context, s string) error {
	d, err := Parse(s)
	if err != nil {
		return err
	}
	if r.Config != "" {
		if _, err := os.Stat(r.Config); err != nil {
			why := "cannot be read: " + err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				why = "does not exist"
			}
			return fmt.Errorf("cloud destination %s: the rclone configuration file %s %s: put it back, or give the one that defines %q with --rclone-config", s, r.Config, why, d.Remote)
		}
	}
	names, err := r.Remotes(ctx)
	if errors.Is(err, ErrNoRclone) {
		return fmt.Errorf("cloud destination %s: %w", s, err)
	}
	if err != nil {
		return fmt.Errorf("cloud destination %s: rclone cannot list its remotes: %v", s, err)
	}
	if !slices.Contains(names, d.Remote) {
		there := "it has none"
		if len(names) > 0 {
			there = "it has " + strings.Join(names, ", ")
		}
		return fmt.Errorf("cloud destination %s: rclone's configuration has no remote %q (%s): add it with rclone config, or write one of those", s, d.Remote, there)
	}
	return r.Check(ctx, d)
}
