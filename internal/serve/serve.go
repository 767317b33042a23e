// Package serve is dit serve: a read-only HTTP view of a catalog for the
// people off the cart (a producer's phone, the lab): a status page of the
// current jobs (each card's verdict, safe to format, and while a job runs
// its progress, rates, live TB/hour, the estimates until each card is
// copied, free and safe to format, and stalls in words; array health when
// the arrays are on this machine, with each blade's drive health: ok,
// warning with the problems, unknown with why) refreshed live by
// server-sent events, the same as JSON, and Prometheus metrics.
//
// It renders the engine's models and decides nothing: a card is the
// engine's summary of it (offload.CardSummary: its verdict, package
// verdict) with, while it is at work, the engine's live model of its run
// (live.Card, package live); a job carries the live model's job figures.
// No rate or estimate is computed here.
//
// The engine runs in other processes (dit offload on this cart, or on
// every cart of a shared PostgreSQL catalog), so the server polls the
// catalog (every Options.Poll): the verdicts, and the live snapshot the
// engine records there every second (offload.LiveProgress; one older than
// Options.LiveStale of a job whose process this machine cannot see is not
// shown as live), and pushes a new status to the page's event stream
// whenever it changed.
//
// Endpoints, all GET (or HEAD); anything else is 405 and changes nothing:
//
//	/             the status page
//	/api/status   the status as JSON (Status)
//	/events       text/event-stream: an event "status" with the JSON
//	              status at once and at every change
//	/metrics      Prometheus text format (see metrics.go)
//
// With a token, every request must carry it (Authorization: Bearer TOKEN,
// or ?token=TOKEN, which the page passes on to its event stream); without
// it the answer is 401.
package serve

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid"
)

// Options configure a Server.
type Options struct {
	// Token, when set, is required on every request.
	Token string
	// Poll is how often the catalog is read for changes (default 1 s).
	Poll time.Duration
	// Recent: ended jobs started within this long are shown besides the
	// running ones (default 24 h).
	Recent time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// Verdicts is how long a running job's verdicts (its summary, read
	// from every file of the job) are kept while its files change
	// (default 5 s); an ended job's are read again as soon as a file or a
	// copy of it changes state. Progress (bytes, rates) is read at every
	// poll. Negative: verdicts read at every poll.
	Verdicts time.Duration
	// Discover lists the machine's volumes, SMART runs smartctl: the
	// blades' drive health (defaults: devices.Discover, smartctl; tests
	// give the committed fixtures). A drive is asked at most every
	// DriveEvery (default 1 min).
	Discover   func(ctx context.Context) ([]devices.Volume, error)
	SMART      devices.Runner
	DriveEvery time.Duration
	// LiveStale: the engine records a running job's live snapshot every
	// second; a snapshot older than this of a job whose process cannot be
	// seen from here (another cart's, or one that no longer writes) is
	// not shown as live (default 5 s).
	LiveStale time.Duration
}

// Server serves one catalog.
type Server struct {
	cat *catalog.Catalog
	o   Options

	mu      sync.Mutex
	last    []byte        // the latest status JSON
	lastAt  time.Time     // when the kept status was read
	lastKey []byte        // the same without the time it was read
	changed chan struct{} // closed when last changes
	err     error         // the latest poll's error

	arrays sync.Map // destination -> arrayCache
	drives sync.Map // blade folder -> driveCache
	sums   sync.Map // job id -> sumCache
}

// sumCache is a job's summary as read at at, for the job in state
// (finished at finished) with the files and copies counted by counts.
type sumCache struct {
	at       time.Time
	state    string
	finished time.Time
	counts   string
	s        *offload.Summary
}

// summary is job j's summary (its verdicts). It is read again whenever
// the job's state or the states of its files and copies changed (a cheap
// count: a copy withdrawn by dit verify shows at the next poll); for a
// running job, whose counts change all the time, at most every
// Options.Verdicts: a job of 100,000 files takes seconds to read, and
// dit serve runs beside the offload on the cart.
func (s *Server) summary(j *catalog.Job, now time.Time) (*offload.Summary, error) {
	counts, err := s.cat.JobCounts(j.ID)
	if err != nil {
		return nil, err
	}
	if v, ok := s.sums.Load(j.ID); ok && s.o.Verdicts > 0 {
		c := v.(sumCache)
		same := c.state == j.State && c.finished.Equal(j.Finished)
		if same && (c.counts == counts || (j.Active && now.Sub(c.at) < s.o.Verdicts)) {
			return c.s, nil
		}
	}
	sum, err := offload.LoadSummary(s.cat, j.ID)
	if err != nil {
		return nil, err
	}
	s.sums.Store(j.ID, sumCache{at: now, state: j.State, finished: j.Finished, counts: counts, s: sum})
	return sum, nil
}

// New makes a server over cat.
func New(cat *catalog.Catalog, o Options) *Server {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Recent <= 0 {
		o.Recent = 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Verdicts == 0 {
		o.Verdicts = 5 * time.Second
	}
	if o.Discover == nil {
		o.Discover = devices.Discover
	}
	if o.DriveEvery <= 0 {
		o.DriveEvery = time.Minute
	}
	if o.LiveStale <= 0 {
		o.LiveStale = 5 * time.Second
	}
	return &Server{cat: cat, o: o, changed: make(chan struct{})}
}

// Status is what the page shows.
type Status struct {
	Catalog      string      `json:"catalog"`
	Generated    time.Time   `json:"generated"`
	Jobs         []JobStatus `json:"jobs"`
	SafeToFormat []CardRef   `json:"safe_to_format"`
	Arrays       []Array     `json:"arrays"`
}

// JobStatus is a job and its cards: its state as the verdict model
// decides it (package verdict) and, while a process runs it, the
// engine's live model of it (package live: rate, live TB/hour, the
// estimates, stalls), as the engine last recorded it in the catalog
// (offload.LiveProgress) at LiveAt. Shown is the same as people read it.
type JobStatus struct {
	ID      int64         `json:"job_id"`
	Name    string        `json:"name"`
	Station string        `json:"station"`
	State   verdict.State `json:"state"`
	Active  bool          `json:"active"`
	Started time.Time     `json:"started,omitzero"`
	// Cascade: the job's cards have a second run (dit offload --then).
	Cascade bool      `json:"cascade,omitempty"`
	Live    *live.Job `json:"live,omitempty"`
	LiveAt  time.Time `json:"live_at,omitzero"`
	// LiveError: the live snapshot could not be read (the verdicts
	// still show).
	LiveError string   `json:"live_error,omitempty"`
	Shown     JobShown `json:"shown"`
	Cards     []Card   `json:"cards"`
}

// Card is a card of a job: the engine's summary of it (its verdict,
// counts, destinations, a cascade's second run in Then), and while it
// is at work the engine's live model of its run (Live: a cascade's second
// run once the card is free, Hop 2). Shown is the same as people read
// it, so the page computes and decides nothing.
type Card struct {
	offload.CardSummary
	Live  *live.Card `json:"live,omitempty"`
	Shown Shown      `json:"shown"`
}

// CardRef names a card safe to format.
type CardRef struct {
	Station string    `json:"station"`
	JobID   int64     `json:"job_id"`
	Job     string    `json:"job"`
	Card    string    `json:"card"`
	SafeAt  time.Time `json:"safe_at,omitzero"`
}

// Array is the health of a destination that is a dit array on this
// machine.
type Array struct {
	Path    string         `json:"path"`
	Health  string         `json:"health"` // healthy | degraded | damaged | failed | unknown
	Members map[int]string `json:"members_not_active,omitempty"`
	// Unreadable and Unprotected are the files that cannot be read, and
	// that read but lack redundancy; DamagedUnits the bad units known
	// (found by a scrub or a read, not repaired yet).
	Unreadable   []string `json:"files_unreadable,omitempty"`
	Unprotected  []string `json:"files_without_redundancy,omitempty"`
	DamagedUnits int      `json:"damaged_units,omitempty"`
	Error        string   `json:"error,omitempty"`
	// Blades are the array's members with their drives' health.
	Blades []Blade `json:"blades,omitempty"`
}

// Blade is a member of an array and its drive's health, as dit array
// status and dit-gui's Arrays tab show it (devices.Health's State and
// Reason): ok, warning with the problems, unknown with why.
type Blade struct {
	Role  int    `json:"role"`
	Kind  string `json:"kind"` // data | parity
	Path  string `json:"path"`
	State string `json:"state"` // active, missing, failed, rebuilding
	// Drive is ok, warning or unknown; DriveReason says why.
	Drive       devices.DriveState `json:"drive"`
	DriveReason string             `json:"drive_reason"`
	Device      string             `json:"device,omitempty"`
	Model       string             `json:"model,omitempty"`
}

// Snapshot reads the status from the catalog.
func (s *Server) Snapshot() (*Status, error) {
	jobs, err := s.cat.Jobs()
	if err != nil {
		return nil, err
	}
	now := s.o.Now()
	st := &Status{Catalog: s.cat.Path(), Generated: now.UTC(), Jobs: []JobStatus{}, SafeToFormat: []CardRef{}, Arrays: []Array{}}
	dests := map[string]bool{}
	for _, j := range jobs {
		if !j.Active && now.Sub(j.Started) > s.o.Recent {
			continue
		}
		js, err := s.job(j, now)
		if err != nil {
			return nil, err
		}
		for _, c := range js.Cards {
			if c.SafeToFormat {
				st.SafeToFormat = append(st.SafeToFormat, CardRef{Station: j.Station, JobID: j.ID, Job: j.Name, Card: c.Label, SafeAt: c.SafeAt})
			}
		}
		st.Jobs = append(st.Jobs, js)
		if j.Active {
			ds, err := s.cat.Dests(j.ID)
			if err != nil {
				return nil, err
			}
			for _, d := range ds {
				dests[d.Path] = true
			}
		}
	}
	var paths []string
	for p := range dests {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if a, ok := s.array(p); ok {
			st.Arrays = append(st.Arrays, a)
		}
	}
	return st, nil
}

// job is job j's status at now: its verdicts (the summary), and the
// engine's live snapshot while a process runs it (liveOf).
func (s *Server) job(j *catalog.Job, now time.Time) (JobStatus, error) {
	sum, err := s.summary(j, now)
	if err != nil {
		return JobStatus{}, err
	}
	js := JobStatus{ID: j.ID, Name: j.Name, Station: j.Station, State: sum.Status, Active: j.Active, Started: j.Started,
		Cascade: len(sum.Then) > 0, Cards: []Card{}}
	prog, at, err := s.liveOf(j, sum.Status, now)
	if err != nil {
		js.LiveError = err.Error()
	}
	if prog != nil {
		js.Live, js.LiveAt = &prog.Job, at.UTC()
	}
	for _, cs := range sum.Cards {
		c := Card{CardSummary: cs}
		if prog != nil && !cs.Status.Ended() {
			c.Live = liveCard(prog.Cards, cs)
		}
		c.Shown = cardShown(c, js.Cascade)
		js.Cards = append(js.Cards, c)
	}
	js.Shown = jobShown(js)
	return js, nil
}

type arrayCache struct {
	at time.Time
	a  Array
	ok bool
}

// array is the health of destination p if it is a dit array here, read
// at most every 10 s (opening an array reads its superblocks); its
// blades' drives at most every Options.DriveEvery.
func (s *Server) array(p string) (Array, bool) {
	if v, ok := s.arrays.Load(p); ok && time.Since(v.(arrayCache).at) < 10*time.Second {
		return v.(arrayCache).a, v.(arrayCache).ok
	}
	c := arrayCache{at: time.Now()}
	if raid.IsBlade(p) {
		c.ok = true
		c.a = Array{Path: p, Health: "unknown"}
		if a, err := raid.Open([]string{p}, raid.OpenOptions{AllowDegraded: true}); err != nil {
			c.a.Error = err.Error()
		} else {
			h := a.Health()
			c.a.Health, c.a.Members = h.State, h.Members
			c.a.Unreadable, c.a.Unprotected, c.a.DamagedUnits = h.Unreadable, h.Unprotected, h.DamagedUnits
			c.a.Blades = s.blades(a, h)
			a.Close()
		}
	}
	s.arrays.Store(p, c)
	return c.a, c.ok
}

type driveCache struct {
	at time.Time
	h  *devices.Health
}

// blades are a's members with their drives' health (devices.HealthOfAll,
// each drive asked at most every Options.DriveEvery).
func (s *Server) blades(a *raid.Array, h raid.Health) []Blade {
	sb := a.Superblock()
	var out []Blade
	var ask []string
	for _, m := range sb.Members {
		b := Blade{Role: m.Role, Kind: "data", Path: a.BladeDir(m.Role), State: m.State}
		if m.Role >= sb.DataBlades {
			b.Kind = "parity"
		}
		if why, ok := h.Members[m.Role]; ok {
			b.State = why
		}
		if b.Path == "" {
			b.Path, b.State = m.PathHint, raid.MemberMissing
			b.Drive, b.DriveReason = devices.DriveUnknown, "the blade is not here"
		} else if v, ok := s.drives.Load(b.Path); !ok || time.Since(v.(driveCache).at) >= s.o.DriveEvery {
			ask = append(ask, b.Path)
		}
		out = append(out, b)
	}
	if len(ask) > 0 {
		ctx := context.Background()
		var vols []devices.Volume
		if s.o.Discover != nil {
			vols, _ = s.o.Discover(ctx)
		}
		for i, hh := range devices.HealthOfAll(ctx, vols, ask, s.o.SMART) {
			s.drives.Store(ask[i], driveCache{at: time.Now(), h: hh})
		}
	}
	for i, b := range out {
		if b.Drive != "" {
			continue
		}
		v, _ := s.drives.Load(b.Path)
		dh := v.(driveCache).h
		out[i].Drive, out[i].DriveReason = dh.State(), dh.Reason()
		if dh.Unavailable == "" {
			out[i].Device, out[i].Model = dh.Device, dh.Model
		}
	}
	return out
}

// poll reads the status; a change wakes the event streams. A change is a
// change of content: the status is compared without the time it was read,
// and sent with it.
//
// Two polls may run at once (the ticker's and a first request's): a
// snapshot read before the one already kept is dropped, so the streams
// never go back in time to older content.
func (s *Server) poll() {
	st, err := s.Snapshot()
	var b, key []byte
	var at time.Time
	if err == nil {
		b, _ = json.Marshal(st)
		at = st.Generated
		st.Generated = time.Time{}
		key, _ = json.Marshal(st)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && at.Before(s.lastAt) {
		return
	}
	s.err = err
	if err == nil && !bytes.Equal(key, s.lastKey) {
		s.last, s.lastKey, s.lastAt = b, key, at
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

// Run polls the catalog until ctx ends. It returns once its last poll
// is done: close the catalog only after Run returned (a poll's reads
// racing the catalog's Close can leave the catalog's writer spinning).
func (s *Server) Run(ctx context.Context) {
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	s.poll()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.poll()
		}
	}
}

// current returns the latest status JSON and the channel closed at its
// next change.
func (s *Server) current() ([]byte, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil && s.err == nil {
		s.mu.Unlock()
		s.poll()
		s.mu.Lock()
	}
	return s.last, s.changed, s.err
}

// Handler is the HTTP interface.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.page)
	mux.HandleFunc("/api/status", s.apiStatus)
	mux.HandleFunc("/events", s.events)
	mux.HandleFunc("/metrics", s.metrics)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if s.o.Token != "" && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="dit serve"`)
			http.Error(w, "401 unauthorized: dit serve was started with a token; open the address with ?token=TOKEN or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed: dit serve is read-only", http.StatusMethodNotAllowed)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) authorized(r *http.Request) bool {
	got := r.URL.Query().Get("token")
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		got = strings.TrimPrefix(h, "Bearer ")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.o.Token)) == 1
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.Snapshot()
	if err != nil {
		http.Error(w, "reading the catalog: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(st)
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for {
		b, next, err := s.current()
		if err != nil {
			fmt.Fprintf(w, "event: error\ndata: %s\n\n", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Fprintf(w, "event: status\ndata: %s\n\n", b)
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-next:
		}
	}
}
