package watch

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Ejector ejects a card's volume.
type Ejector interface {
	Eject(ctx context.Context, v Volume) error
}

// SystemEjector ejects with the platform's tools: udisksctl unmount and
// power-off on Linux (the device from mountinfo), diskutil eject on macOS.
type SystemEjector struct{}

// Eject unmounts the volume and powers its drive off.
func (SystemEjector) Eject(ctx context.Context, v Volume) error {
	run := func(name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
		}
		return nil
	}
	if runtime.GOOS == "darwin" {
		return run("diskutil", "eject", v.Path)
	}
	if v.Device == "" || !strings.HasPrefix(v.Device, "/dev/") {
		return fmt.Errorf("the block device of %s is not known: unmount it by hand", v.Path)
	}
	if _, err := exec.LookPath("udisksctl"); err != nil {
		return fmt.Errorf("udisksctl is not installed (Debian: apt-get install udisks2): unmount %s by hand", v.Path)
	}
	if err := run("udisksctl", "unmount", "-b", v.Device); err != nil {
		return err
	}
	if err := run("udisksctl", "power-off", "-b", v.Device); err != nil {
		return fmt.Errorf("unmounted, but not powered off: %w", err)
	}
	return nil
}

// SafeToEject refuses a volume that is a destination of the preset (or
// holds one): dit never ejects a destination.
func SafeToEject(v Volume, p *Preset) error {
	if p == nil {
		return nil
	}
	clean := filepath.Clean(v.Path)
	for _, d := range append(append([]string(nil), p.Dests...), p.Then...) {
		d = filepath.Clean(d)
		if clean == d || strings.HasPrefix(d, clean+string(filepath.Separator)) {
			return fmt.Errorf("%s holds the destination %s: dit never ejects a destination", v.Path, d)
		}
	}
	return nil
}
