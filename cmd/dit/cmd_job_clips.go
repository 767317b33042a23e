package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/jobreport"
)

type showCardClips struct {
	Label    string           `json:"label"`
	Path     string           `json:"path"`
	Family   string           `json:"family,omitempty"`
	Camera   string           `json:"camera,omitempty"`
	CardType string           `json:"card_type"`
	Seconds  float64          `json:"seconds"`
	Clips    []jobreport.Clip `json:"clips"`
}

// runJobShowClips is dit job show --clips: each card's clips, as
// recognised when the job ran.
func runJobShowClips(o JobShowOptions, g *GlobalOptions, id int64) error {
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	j, err := cat.Job(id)
	if err != nil {
		return err
	}
	cards, err := cat.Cards(id)
	if err != nil {
		return err
	}
	var out []showCardClips
	for _, k := range catalog.FirstRun(cards) {
		cs, sum, secs, err := jobreport.CardClips(cat, k.ID)
		if err != nil {
			return err
		}
		if cs == nil {
			cs = []jobreport.Clip{}
		}
		sc := showCardClips{Label: k.Label, Path: k.Path, Clips: cs, Seconds: secs,
			Family: sum.Family, Camera: sum.Camera, CardType: sum.Type}
		out = append(out, sc)
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			JobID int64           `json:"job_id"`
			Name  string          `json:"name"`
			Cards []showCardClips `json:"cards"`
		}{j.ID, j.Name, out})
	}
	fmt.Fprintf(g.stdout, "Job %d %q: clips\n", j.ID, j.Name)
	for _, c := range out {
		fmt.Fprintf(g.stdout, "\n%s (%s)\n", c.Label, c.Path)
		if len(c.Clips) == 0 {
			fmt.Fprintln(g.stdout, "  no clips recognised: the card is files (see dit job show)")
			continue
		}
		fmt.Fprintf(g.stdout, "  %s, %s, %s\n", strings.Trim(c.Camera+", "+c.CardType, ", "), plural(len(c.Clips), "clip"), cardLength(c))
		tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  CLIP\tTC IN\tTC OUT\tDURATION\tFPS\tCODEC\tRESOLUTION\tSIZE\tVERIFIED\tTHUMBNAIL")
		for _, k := range c.Clips {
			v, th := "no", k.Thumbnail
			if k.Verified {
				v = "yes"
			}
			if th == "" {
				th = "- (" + k.ThumbnailNote + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.Name, dashIf(k.TCStart), dashIf(k.TCEnd), k.Duration(),
				dashIf(k.FPS), dashIf(k.Codec), dashIf(k.Resolution), units.FormatBytes(k.Bytes), v, th)
		}
		tw.Flush()
	}
	return nil
}

// cardLength is the clips' summed length, and how many of them have a
// length nobody knows (R3D, BRAW: not "0:00:00.000").
func cardLength(c showCardClips) string {
	unknown := 0
	for _, k := range c.Clips {
		if k.Duration() == jobreport.Unknown {
			unknown++
		}
	}
	switch {
	case unknown == len(c.Clips):
		return "length " + jobreport.Unknown
	case unknown > 0:
		return fmt.Sprintf("%s (%d of %s length)", clipLength(c.Seconds), unknown, jobreport.Unknown)
	}
	return clipLength(c.Seconds)
}

// clipLength writes seconds as H:MM:SS.mmm.
func clipLength(s float64) string {
	ms := int64(s*1000 + 0.5)
	return fmt.Sprintf("%d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}

func dashIf(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
