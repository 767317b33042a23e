package cloud

import (
	"context"
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
// used: written right (Parse), then Check: rclone installed, REMOTE one
// of the configuration's remotes (else the error names those there
// are), PATH a folder that is there, does not depend on the working
// folder and can be written to. Each error names s and what to do.
func (r *Rclone) CheckDest(ctx context.Context, s string) error {
	d, err := Parse(s)
	if err != nil {
		return &DestError{err.Error()}
	}
	return r.Check(ctx, d)
}

// CheckDestRead is CheckDest without the write (CheckRead).
func (r *Rclone) CheckDestRead(ctx context.Context, s string) error {
	d, err := Parse(s)
	if err != nil {
		return &DestError{err.Error()}
	}
	return r.CheckRead(ctx, d)
}
