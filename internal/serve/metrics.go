package serve

import (
	"fmt"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// metrics writes the Prometheus text format (version 0.0.4):
//
//	dit_bytes_copied_total{station}       bytes of files copied (verified or not yet), every job
//	dit_files_verified_total{station}     files verified on every destination
//	dit_files_failed_total{station}       files that failed
//	dit_verify_failures_total{station}    copies that failed on a destination (written or read back wrong)
//	dit_jobs{station,state}               jobs shown by the status page, by state
//	dit_card_safe_to_format{station,job,card}  1 when safe to format
//	dit_card_free{station,job,card}       1 when a cascade's card is free
//	dit_card_state{station,job,card,state}  the card's (or its second run's) state
//	dit_card_bytes{station,job,card}      a shown card's size
//	dit_card_done_bytes{station,job,card,phase}  how far its run's current phase is (live)
//	dit_card_rate_bytes_per_second{station,job,card,phase}  its run's rate (live)
//	dit_card_eta_seconds{station,job,card,until}  the live model's estimates (copied, card_free, safe_to_format), when known
//	dit_card_stalled{station,job,card}    1 while its run is stalled (live)
//	dit_job_rate_bytes_per_second{station,job}  read from the cards now (live)
//	dit_job_tb_per_hour{station,job}      the job's end-to-end TB/hour so far (live)
//	dit_array_healthy{path}               1 healthy, 0 degraded, damaged or failed (arrays on this machine)
//	dit_blade_drive_ok{path,role,blade,drive}  1 when the blade's drive reports no problem, 0 warning or unknown
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	totals, err := s.cat.Totals()
	if err != nil {
		http.Error(w, "reading the catalog: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	st, err := s.Snapshot()
	if err != nil {
		http.Error(w, "reading the catalog: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	var b strings.Builder
	family := func(name, typ, help string) { fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ) }
	sample := func(name string, v float64, labels ...string) {
		b.WriteString(name)
		if len(labels) > 0 {
			b.WriteByte('{')
			for i := 0; i < len(labels); i += 2 {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%s=\"%s\"", labels[i], labelEscaper.Replace(labels[i+1]))
			}
			b.WriteByte('}')
		}
		fmt.Fprintf(&b, " %s\n", strconv.FormatFloat(v, 'g', -1, 64))
	}
	var stations []string
	for k := range totals {
		stations = append(stations, k)
	}
	sort.Strings(stations)
	for _, m := range []struct {
		name, help string
		get        func(*catalog.StationTotals) int64
	}{
		{"dit_bytes_copied_total", "Bytes of files copied (verified or not yet), over every job of the station.", func(t *catalog.StationTotals) int64 { return t.BytesCopied }},
		{"dit_files_verified_total", "Files verified on every destination.", func(t *catalog.StationTotals) int64 { return t.FilesVerified }},
		{"dit_files_failed_total", "Files that failed.", func(t *catalog.StationTotals) int64 { return t.FilesFailed }},
		{"dit_verify_failures_total", "Copies that failed on a destination (written or read back wrong).", func(t *catalog.StationTotals) int64 { return t.CopiesFailed }},
	} {
		family(m.name, "counter", m.help)
		for _, k := range stations {
			sample(m.name, float64(m.get(totals[k])), "station", k)
		}
	}
	family("dit_jobs", "gauge", "Jobs on the status page (running, or started within the last day), by state.")
	jobs := map[[2]string]int{}
	for _, j := range st.Jobs {
		jobs[[2]string{j.Station, string(j.State)}]++
	}
	var keys [][2]string
	for k := range jobs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	for _, k := range keys {
		sample("dit_jobs", float64(jobs[k]), "station", k[0], "state", k[1])
	}
	s.cardMetrics(st, family, sample)
	family("dit_array_healthy", "gauge", "1 when the dit array (a destination on this machine) is healthy, 0 when degraded, damaged or failed.")
	for _, a := range st.Arrays {
		v := 0.0
		if a.Health == "healthy" {
			v = 1
		}
		sample("dit_array_healthy", v, "path", a.Path, "health", a.Health)
	}
	family("dit_blade_drive_ok", "gauge", "1 when the drive of a dit array's blade reports no problem (SMART), 0 when it warns or has no health to show (drive: ok, warning, unknown).")
	for _, a := range st.Arrays {
		for _, bl := range a.Blades {
			v := 0.0
			if bl.Drive == devices.DriveOK {
				v = 1
			}
			sample("dit_blade_drive_ok", v, "path", a.Path, "role", strconv.Itoa(bl.Role), "blade", bl.Path, "drive", string(bl.Drive))
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String()))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// labelEscaper escapes a label value as the text format wants.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
