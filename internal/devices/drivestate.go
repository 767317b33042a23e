package devices

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// DriveState is a drive's health in one word, the same in dit array
// status, dit-gui and dit serve.
type DriveState string

const (
	// DriveOK: the drive answered and reports no problem.
	DriveOK DriveState = "ok"
	// DriveWarning: the drive reports problems (Health.Problems).
	DriveWarning DriveState = "warning"
	// DriveUnknown: there is no health to show (Health.Unavailable says
	// why: smartctl missing, a USB bridge that does not answer, no drive
	// found under the folder).
	DriveUnknown DriveState = "unknown"
)

// State is the drive's health in one word.
func (h *Health) State() DriveState {
	switch {
	case h == nil || h.Unavailable != "":
		return DriveUnknown
	case h.Warn():
		return DriveWarning
	}
	return DriveOK
}

// Reason says in words what State rests on: the problems (warning), why
// there is no health (unknown), or the drive and its figures (ok).
func (h *Health) Reason() string {
	switch h.State() {
	case DriveUnknown:
		if h == nil {
			return "not asked"
		}
		return h.Unavailable
	case DriveWarning:
		return strings.Join(h.Problems, "; ")
	}
	return h.facts()
}

// ident is the drive's device, model and serial.
func (h *Health) ident() string {
	id := strings.TrimSpace(h.Model + " " + h.Serial)
	if id == "" {
		return h.Device
	}
	return h.Device + " (" + id + ")"
}

// facts are the drive's figures: media errors, wear, temperature.
func (h *Health) facts() string {
	f := fmt.Sprintf("%s: %d media errors", h.ident(), h.MediaErrors)
	if h.Wear >= 0 {
		f += fmt.Sprintf(", wear %d %%", h.Wear)
	}
	if h.TemperatureC > 0 {
		f += fmt.Sprintf(", %d °C", h.TemperatureC)
	}
	return f
}

// HealthTimeout bounds HealthOfAll: a USB bridge that does not answer
// never holds a view back for long.
const HealthTimeout = 8 * time.Second

// HealthOfAll asks the drives holding folders (blades of an array, found
// among vols from [Discover]) for their health, all at once and within
// HealthTimeout, each drive once: two folders on one drive share its
// Health. run is the smartctl runner (nil: smartctl). The result is in
// the order of folders, never nil.
func HealthOfAll(ctx context.Context, vols []Volume, folders []string, run Runner) []*Health {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	devs := make([]string, len(folders))
	byDevice := map[string]*Health{}
	var ask []string
	for i, f := range folders {
		if devs[i] = driveOf(vols, f); devs[i] != "" {
			if _, ok := byDevice[devs[i]]; !ok {
				byDevice[devs[i]] = nil
				ask = append(ask, devs[i])
			}
		}
	}
	hs := make([]*Health, len(ask))
	var wg sync.WaitGroup
	for i, dev := range ask {
		wg.Go(func() { hs[i] = SMART(ctx, dev, run) })
	}
	wg.Wait()
	for i, dev := range ask {
		byDevice[dev] = hs[i]
	}
	out := make([]*Health, len(folders))
	for i, f := range folders {
		if out[i] = byDevice[devs[i]]; out[i] == nil {
			out[i] = noDrive(f)
		}
	}
	return out
}
