package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// The command line's values checked before the catalog is opened (and
// perhaps created), where the engine's own checks come later: a mistake
// creates nothing.

// checkOffloadFlags checks what dit offload's Spec does not (it treats a
// zero or empty value as "not given"): the job's name, a --hash or
// --proxy-workers given empty or zero, the files --rclone-config and
// --sync-to name, and the bus budget's topology file.
func checkOffloadFlags(cmd *cobra.Command, o OffloadOptions, g *GlobalOptions) error {
	changed := cmd.Flags().Changed
	if err := checkJobName("--name", o.Name); err != nil {
		return err
	}
	if changed("hash") && strings.TrimSpace(o.Hashes) == "" {
		return usagef(`--hash "": give one or more of %s, e.g. xxh64,md5`, hashing.Names(hashing.All))
	}
	if changed("proxy-workers") && o.ProxyWorkers < 1 {
		return usagef("--proxy-workers %d: give 1 or more ffmpeg at once", o.ProxyWorkers)
	}
	if err := checkRcloneConfig(o.RcloneConfig); err != nil {
		return err
	}
	if err := g.checkSyncTo("--sync-to", g.SyncTo); err != nil {
		return err
	}
	// The topology file is read again when the job is assembled; read
	// here, a file that is not there or not a topology is refused before
	// the catalog is.
	_, err := offloadSchedule(o.Sched)
	return err
}

// checkRcloneConfig refuses a --rclone-config file that is not there.
func checkRcloneConfig(file string) error {
	return checkFileFlag("--rclone-config", file, "your rclone configuration file (rclone config file prints where it is)")
}

// checkSyncTo refuses a shared catalog (--sync-to, DIT_SYNC_TO, dit
// catalog sync --to) that is a file in a folder that does not exist, or
// a folder: the push would fail at each job's end, or create folders of
// a mistyped path.
func (g *GlobalOptions) checkSyncTo(flag, to string) error {
	if to == "" || catalog.IsPostgresURL(to) {
		return nil
	}
	if fi, err := os.Stat(to); err == nil && fi.IsDir() {
		return usagef("%s %s is a folder: give the shared catalog's file, or postgres://user@host/db", flag, to)
	}
	dir := filepath.Dir(to)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("%s %s: its folder %s does not exist: give postgres://user@host/db or a catalog file in an existing folder", flag, to, dir)
	}
	return nil
}

// freshCatalog is the catalog file the command's catalog would be
// created as ("": it is there already, or it is PostgreSQL).
func (g *GlobalOptions) freshCatalog() string {
	p := g.DB
	if p == "" {
		p = catalog.DefaultPath()
	}
	if catalog.IsPostgresURL(p) {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if _, err := os.Lstat(abs); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return abs
}

// forgetRefused removes the catalog file fresh (freshCatalog) that this
// command created when it ends with a usage error and the catalog holds
// no job: a refusal found only once the catalog was open (a cloud
// destination rclone does not know, a --limit naming no destination)
// leaves nothing behind either. It returns err.
func forgetRefused(fresh string, err error) error {
	if fresh == "" || !isUsageError(err) {
		return err
	}
	cat, oerr := catalog.OpenExisting(fresh)
	if oerr != nil {
		return err
	}
	jobs, jerr := cat.Jobs()
	cat.Close()
	if jerr != nil || len(jobs) > 0 {
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(fresh + suffix)
	}
	return err
}

// isUsageError says whether err ends dit with the usage exit code
// (exitCode's rule, without printing).
func isUsageError(err error) bool {
	if err == nil {
		return false
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code == ExitUsage
	}
	var ue *offload.UsageError
	return errors.As(err, &ue) || usageCause(err) || isUsage(err)
}
