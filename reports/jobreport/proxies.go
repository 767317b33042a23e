package jobreport

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
)

// Proxy is one editorial proxy of a card's clip (dit offload --proxies),
// made or failed. A proxy that failed is not the footage's failure: the
// card's verdict does not count it.
type Proxy struct {
	Clip   string `json:"clip"`
	Preset string `json:"preset"`
	State  string `json:"state"` // made | failed | cancelled | skipped
	// Dest is the destination the proxy is on (a folder, a dit array's
	// blade, rclone:REMOTE:PATH); Path the proxy's full path there.
	Dest    string            `json:"dest,omitempty"`
	Path    string            `json:"path,omitempty"`
	Source  string            `json:"source,omitempty"` // the verified copy ffmpeg read
	TCStart string            `json:"tc_start,omitempty"`
	Size    int64             `json:"size,omitempty"`
	Hashes  map[string]string `json:"hashes,omitempty"`
	Error   string            `json:"error,omitempty"`
	// VerifiedBy is how the proxy's copy was verified, as a copy's
	// verified_by: "s3-etag:md5" (the storage's own MD5, a cloud
	// destination), "readback:ALGOS", ALGOS (a copy to a second folder);
	// "" for the proxy as ffmpeg wrote it.
	VerifiedBy string    `json:"verified_by,omitempty"`
	MadeAt     time.Time `json:"made_at,omitzero"`
}

// loadProxies reads the proxies of card cardID of job jobID into c.
func loadProxies(r *Report, cat *catalog.Catalog, jobID, cardID int64, c *Card) error {
	return cat.EachCardProxy(jobID, cardID, func(p catalog.Proxy) error {
		c.Proxies = append(c.Proxies, proxyRow(r, p))
		return nil
	})
}

// proxyLine is a proxy in a line: where it is, or why it failed.
func proxyLine(p Proxy) (string, string) {
	if p.State == catalog.ProxyMade {
		return p.Clip + ":", fmt.Sprintf("%s, %s, TC %s, %s", p.Preset, p.Path, dash(p.TCStart), units.FormatBytes(p.Size))
	}
	return p.Clip + ":", fmt.Sprintf("%s %s (the footage is safe): %s", p.Preset, p.State, p.Error)
}

// proxiesHTML is a card's proxies section in the HTML report.
func (r *Report) proxiesHTML(c *Card) template.HTML {
	if len(c.Proxies) == 0 {
		return ""
	}
	esc := template.HTMLEscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "\n<h3>Proxies (%d)</h3>\n<table class=\"clips\">\n<tr><th>Clip</th><th>Preset</th><th>State</th><th>TC in</th><th>Size</th><th>Proxy, or why not</th></tr>\n", len(c.Proxies))
	for _, p := range c.Proxies {
		st, what := esc(p.State), esc(p.Path)
		switch p.State {
		case catalog.ProxyMade:
		case catalog.ProxySkipped:
			what = esc(p.Error)
		default:
			st, what = `<span class="notsafe">`+st+`</span>`, esc(p.Error)
		}
		fmt.Fprintf(&b, "<tr><td class=\"mono\">%s</td><td>%s</td><td>%s</td><td class=\"mono\">%s</td><td class=\"num\">%s</td><td class=\"mono\">%s</td></tr>\n",
			esc(p.Clip), esc(p.Preset), st, esc(dash(p.TCStart)), sizeHTML(p.Size), what)
	}
	b.WriteString("</table>")
	return template.HTML(b.String())
}

// pdfProxies is a card's proxies in the PDF report.
func pdfProxies(d pdfDoc, c *Card) {
	d.list("Proxies", pdfList{n: len(c.Proxies)}, func(k int) (string, string) {
		return proxyLine(c.Proxies[k])
	})
}
