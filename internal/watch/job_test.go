package watch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// assembled runs a watch's jobs as the front ends do: the preset's
// settings (Preset.JobSettings) assembled (internal/assembly) into a real
// catalog, with a real webhook for the notifications.
type assembled struct {
	p    *Preset
	cat  *catalog.Catalog
	hook string
}

func (r *assembled) Start(ctx context.Context, card string, resume int64, onEvent func(offload.Event)) (Job, error) {
	s, err := r.p.JobSettings([]string{card}, time.Now())
	if err != nil {
		return nil, err
	}
	s.Catalog, s.Resume, s.Hooks = r.cat, resume, assembly.Hooks{OnEvent: onEvent}
	s.Notify = notify.Config{Webhooks: []notify.Webhook{{URL: r.hook, Timeout: 5 * time.Second, Tries: 1}}, Wait: 10 * time.Second, Queue: 64}
	if resume != 0 {
		s.Cards, s.Dests = nil, nil
	}
	p, err := assembly.Prepare(ctx, s)
	if err != nil || p.NothingToCopy {
		return nil, err
	}
	j, err := p.Open(ctx)
	if err != nil {
		return nil, err
	}
	return assembledJob{j}, nil
}

type assembledJob struct{ *assembly.Job }

func (j assembledJob) Run(ctx context.Context) (*offload.Summary, error) {
	if err := j.Start(); err != nil {
		return nil, err
	}
	sum, err := j.Job.Run(ctx)
	j.Finish(ctx, sum, err)
	return sum, err
}

// pullEjector ejects a card by taking its folder out of the volumes'
// folder (the card pulled), and says so.
type pullEjector struct{ ejected chan string }

func (p pullEjector) Eject(_ context.Context, v Volume) error {
	if err := os.Rename(v.Path, filepath.Join(filepath.Dir(v.Path), ".ejected-"+v.Label)); err != nil {
		return err
	}
	p.ejected <- v.Label
	return nil
}

// A camera card mounted while the watch runs: a real job offloads it into
// a real catalog, the card is ejected once safe to format, and the watch's
// events are its own typed kind and actions (JSON "volume", "offload",
// "ejected"), a folder that is no card ignored; the job's notifications
// (a real webhook) say the card is safe to format, from the engine's
// verdict.
func TestWatchOffloadsAndEjectsWithARealJob(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	vols, raid := filepath.Join(dir, "Volumes"), filepath.Join(dir, "RAID")
	require.NoError(t, os.MkdirAll(vols, 0o755))
	require.NoError(t, os.MkdirAll(raid, 0o755))
	var mu sync.Mutex
	var notes []map[string]any
	jobDone := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		notes = append(notes, m)
		mu.Unlock()
		if m["kind"] == string(notify.JobDone) {
			close(jobDone)
		}
	}))
	defer hook.Close()

	events := make(chan Event, 100)
	ej := pullEjector{ejected: make(chan string, 1)}
	preset, err := ParsePreset(filepath.Join(dir, "day07.yaml"), []byte("destinations: RAID\nname: day07\nhashes: xxh64\nblock_size: 64KiB\ndrive_health: off\neject: true\n"))
	require.NoError(t, err)
	w := &Watcher{Preset: preset, Runner: &assembled{p: preset, cat: cat, hook: hook.URL}, Ejector: ej, Catalog: cat, Say: func(e Event) { events <- e }}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { w.Run(ctx, Watch(ctx, Dir(vols), 10*time.Millisecond)); close(stopped) }()

	// A folder that is no card, then a card (written aside, then moved
	// in: mounted whole).
	require.NoError(t, os.MkdirAll(filepath.Join(vols, "Backup", "Documents"), 0o755))
	aside := filepath.Join(dir, "A001")
	for i, f := range []string{"DCIM/100CANON/IMG_0001.CR3", "DCIM/100CANON/IMG_0002.CR3"} {
		p := filepath.Join(aside, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("frame", 20_000+i)), 0o644))
	}
	require.NoError(t, os.Rename(aside, filepath.Join(vols, "A001")))

	// Until the card is ejected: it was offloaded first; the other
	// folder is ignored, saying why.
	var said []Event
	acts := map[string][]Action{}
	for len(said) == 0 || said[len(said)-1].Action != Ejected {
		e := <-events
		require.Equal(t, EvVolume, e.Type)
		said = append(said, e)
		acts[e.Label] = append(acts[e.Label], e.Action)
	}
	require.Equal(t, "A001", <-ej.ejected)
	require.Equal(t, []Action{Offloaded, Ejected}, acts["A001"])
	require.Equal(t, []Action{Ignored}, acts["Backup"])
	e := said[len(said)-1]
	require.Equal(t, "ejected: verified on every destination", e.Message)
	<-jobDone // the job ended (its last notification)
	cancel()
	<-stopped

	// The engine's verdict, in the catalog and in the notifications.
	sum, err := offload.LoadSummary(cat, e.JobID)
	require.NoError(t, err)
	require.Equal(t, "day07", sum.Name)
	require.Equal(t, "xxh64", sum.Hashes, "the preset's hashes")
	require.Equal(t, verdict.Done, sum.Status)
	require.True(t, sum.Cards[0].SafeToFormat)
	cards, err := cat.Cards(e.JobID)
	require.NoError(t, err)
	require.Contains(t, cards[0].Eject, "ejected: verified on every destination", "the eject recorded with its card")
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, m := range notes {
		c, _ := m["card"].(string)
		kinds = append(kinds, strings.TrimSpace(m["kind"].(string)+" "+c))
	}
	require.Equal(t, []string{"safe_to_format A001", "job_done"}, kinds)
	b, err := json.Marshal(said[len(said)-1])
	require.NoError(t, err)
	require.Contains(t, string(b), `"type":"volume"`)
	require.Contains(t, string(b), `"action":"ejected"`)
	require.Equal(t, "eject failed", EjectFailed.Words())
}
