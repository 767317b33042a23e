//go:build cgo

// Command dit-gui is dit's desktop app: the same engine as the dit CLI,
// with the Offload, Running job, History and Arrays views of package ui.
//
//	dit-gui                      the app, on the catalog of dit (--db, DIT_DB)
//	dit-gui --demo               generates two cards, a 4-blade RAID 4 array and a
//	                             shuttle folder in a temp folder and runs a
//	                             simulated job on them (field readers and buses
//	                             played at --demo-scale of their rates)
//	dit-gui --demo --demo-cascade
//	                             the same as a cascade: the array is the first
//	                             copy, the shuttle is filled from it (second run)
//	dit-gui --auto PRESET [--eject]
//	                             Auto-offload on at the start, with a preset file
//	                             (internal/watch's format): every camera card
//	                             mounted is offloaded, ejected when free with --eject
//	dit-gui --watch-dir DIR      Auto-offload watches DIR's subfolders as volumes
//	                             instead of the machine's mounts (demos, tests)
//
// Building it needs cgo and the X11/OpenGL headers (make gui-deps; see the
// README). Without cgo a stub explains that.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/app"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/watch"
	"github.com/dit-org/dit/ui"
)

var version = "dev"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dit-gui:", err)
		os.Exit(1)
	}
}

func run() error {
	db := flag.String("db", os.Getenv("DIT_DB"), "catalog database `file` (env DIT_DB; default "+catalog.DefaultPath()+")")
	demo := flag.Bool("demo", false, "generate two cards, an array and a shuttle in a temp folder and run a simulated job on them")
	demoDir := flag.String("demo-dir", "", "with --demo: the folder to use (default: a new temp folder)")
	demoSize := flag.String("demo-size", "800MB", "with --demo: size of each generated card")
	demoScale := flag.Float64("demo-scale", 0.05, "with --demo: fraction of the field rates the simulated hardware runs at")
	demoCascade := flag.Bool("demo-cascade", false, "with --demo: a cascade: the shuttle is a second-run destination, filled from the first copy on the array")
	demoFail := flag.Bool("demo-fail", false, "with --demo: a different file already sits where a clip of the second card is copied on the shuttle: that card fails (a failed job to look at)")
	theme := flag.String("theme", "", "light, dark or system (default: the last one chosen)")
	auto := flag.String("auto", "", "turn Auto-offload on at the start with this preset `file` (YAML: destinations, then, hashes, verify, layout, eject)")
	eject := flag.Bool("eject", false, "with --auto: eject each card when it is free (as eject: true in the preset)")
	watchDir := flag.String("watch-dir", "", "Auto-offload watches this `folder`'s subfolders as volumes (default: the machine's mounts)")
	throttle := flag.String("throttle", "", "cap each card's read rate, e.g. 200MB/s (demos)")
	rcloneConfig := flag.String("rclone-config", "", "rclone's configuration `file` for rclone:REMOTE:PATH destinations (default: rclone's own, RCLONE_CONFIG or its usual file)")
	cloudBw := flag.String("cloud-bwlimit", "", "bandwidth limit of uploads to rclone: destinations, a `RATE` in bytes/s, decimal units: 20MB/s (or 20M) is 20 000 000 bytes/s; applied to each rclone process")
	showVersion := flag.Bool("version", false, "print the version")
	flag.Parse()
	if *showVersion {
		fmt.Println("dit-gui", version)
		return nil
	}

	var prep *ui.Preparation
	if *demo {
		size, err := units.ParseBytes(*demoSize)
		if err != nil {
			return fmt.Errorf("--demo-size: %w", err)
		}
		dir := *demoDir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "dit-gui-demo."); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "dit-gui: demo in %s (remove it with: rm -rf %s)\n", dir, dir)
		fmt.Fprintf(os.Stderr, "dit-gui: generating two %s cards...\n", units.FormatBytes(size))
		d, err := ui.PrepareDemo(context.Background(), dir, size)
		if err != nil {
			return err
		}
		if *db == "" {
			*db = filepath.Join(dir, "catalog.db")
		}
		prep = &ui.Preparation{Name: "demo", Cards: d.Cards, Dests: d.Dests, Preset: d.Topology,
			Simulate: true, Scale: *demoScale, Start: true, Ephemeral: true}
		if *demoCascade {
			prep.Dests, prep.Then, prep.ThenParallel = d.Dests[:1], d.Dests[1:], 1
		}
		if *demoFail {
			p, err := d.Spoil(prep.Name)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "dit-gui: --demo-fail: a different file at %s\n", p)
		}
	}
	if *db == "" {
		*db = catalog.DefaultPath()
	}
	cat, err := catalog.Open(*db)
	if err != nil {
		return err
	}
	defer cat.Close()

	var rate float64
	if *throttle != "" {
		r, err := units.ParseBytes(strings.TrimSuffix(*throttle, "/s"))
		if err != nil {
			return fmt.Errorf("--throttle: %w", err)
		}
		rate = float64(r)
	}
	if *cloudBw != "" {
		if _, err := offload.ParseRemoteBwLimit(*cloudBw); err != nil {
			return err
		}
	}
	cfg := ui.Config{Catalog: cat, Version: version}
	if *rcloneConfig != "" || *cloudBw != "" {
		cfg.Rclone = &cloud.Rclone{Config: *rcloneConfig, BwLimit: *cloudBw}
	}
	if *watchDir != "" {
		cfg.Volumes = watch.Dir(*watchDir)
	}
	fa := app.NewWithID("org.dit.gui")
	a := ui.New(fa, cfg)
	if *theme != "" {
		a.SetTheme(map[string]string{"light": ui.ThemeLight, "dark": ui.ThemeDark}[*theme])
	} else {
		a.SetTheme(fa.Preferences().StringWithFallback("theme", ui.ThemeSystem))
	}
	a.LookForCards() // the camera cards mounted now, one click to add
	if prep != nil {
		a.Prepare(*prep)
	} else if rate > 0 {
		a.Prepare(ui.Preparation{Throttle: rate})
	}
	if *auto != "" {
		a.AutoOffload(*auto, *eject)
	}
	a.ShowAndRun()
	a.Close() // a job still running is cancelled before the catalog closes
	return nil
}
