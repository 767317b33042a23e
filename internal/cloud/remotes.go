package cloud

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
)

// Remotes are the names of the remotes rclone's configuration holds
// (rclone listremotes: the configuration file's and those defined by
// RCLONE_CONFIG_<NAME>_* variables), without their colons, sorted: asked
// of the daemon of r's settings (started if there is none) where there
// is one, else of an rclone listremotes process.
func (r *Rclone) Remotes(ctx context.Context) ([]string, error) {
	if dm, release := r.daemon(ctx); dm != nil {
		defer release()
		return dm.remotes(ctx)
	}
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

// remoteEnvRe is a variable defining a remote: RCLONE_CONFIG_<NAME>_TYPE
// (rclone's own pattern; the remote is <name> in lower case).
var remoteEnvRe = regexp.MustCompile(`^RCLONE_CONFIG_(.+?)_TYPE=(.+)$`)

// remotes are the remotes of the daemon's configuration: the file's (rc
// config/listremotes, which rclone 1.60 gives alone) and those its
// environment defines, as rclone listremotes lists them.
func (d *daemon) remotes(ctx context.Context) ([]string, error) {
	var out struct{ Remotes []string }
	if err := d.call(ctx, "config/listremotes", map[string]any{}, &out); err != nil {
		return nil, errors.New(rcMessage(err))
	}
	names := out.Remotes
	for _, kv := range d.env {
		if m := remoteEnvRe.FindStringSubmatch(kv); m != nil {
			names = append(names, strings.ToLower(m[1]))
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
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
