package raid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// recover runs after an unclean shutdown (a superblock was left dirty):
// intents roll forward (a manifest exists somewhere) or back (none does),
// staging is emptied, and every file committed in the dirty sessions is
// quick-verified, single-unit damage repaired from parity.
func (a *Array) recover(sessions map[string]bool) error {
	k := a.sb.DataBlades
	intents := map[string]string{} // id -> kind
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		ents, _ := b.fs.ReadDir(path.Join(Dir, "intents"))
		for _, e := range ents {
			if id, ok := strings.CutSuffix(e.Name(), ".intent"); ok && len(id) == 32 {
				kind := "create"
				if data, err := readFile(b.fs, path.Join(Dir, "intents", e.Name())); err == nil {
					var in struct {
						Kind string `json:"kind"`
					}
					if json.Unmarshal(data, &in) == nil && in.Kind != "" {
						kind = in.Kind
					}
				}
				intents[id] = kind
			}
		}
	}
	verify := map[string]bool{}
	for id, kind := range intents {
		m, committed := a.byID[id]
		switch {
		case kind == "create" && committed:
			data := encodeManifest(m)
			for r, b := range a.blades {
				if a.writable(r) {
					if got, err := readFile(b.fs, manifestName(id)); err != nil || !bytes.Equal(got, data) {
						mkdirDurable(b.fs, path.Dir(manifestName(id)))
						if err := writeAtomic(b.fs, manifestName(id), data); err != nil {
							return fmt.Errorf("recovery: replicating the manifest of %s to %s: %w", m.Path, b.fs.Root(), err)
						}
					}
				}
			}
			verify[id] = true
			a.note("recovered", fmt.Sprintf("%s: committed before the crash; manifest replicated (roll forward)", m.Path))
		case kind == "delete":
			if m, ok := a.byID[id]; ok {
				a.unindex(m)
			}
			a.finishDelete(id)
			a.note("recovered", fmt.Sprintf("file %s: an interrupted delete was finished", id))
		default:
			for _, b := range a.blades {
				if b == nil {
					continue
				}
				b.fs.Remove(manifestName(id))
				for pos := 0; pos <= k; pos++ {
					b.fs.Remove(chunkName(id, pos, k))
				}
			}
			a.note("recovered", fmt.Sprintf("file %s was not committed before the crash: its chunks were removed (roll back)", id))
		}
		for _, b := range a.blades {
			if b != nil {
				b.fs.Remove(intentName(id))
			}
		}
	}
	// Make the removals durable, so a second recovery has nothing to do.
	for _, b := range a.blades {
		if b == nil {
			continue
		}
		b.fs.SyncDir(path.Join(Dir, "intents"))
		fans, _ := b.fs.ReadDir(path.Join(Dir, "chunks"))
		for _, f := range fans {
			b.fs.SyncDir(path.Join(Dir, "chunks", f.Name()))
		}
	}
	a.emptyTmp()
	// Every file committed in a dirty session is quick-verified: storage
	// that lied about a flush shows up as unit-hash mismatches.
	for _, m := range a.byFileID() {
		if sessions[m.Session] {
			verify[m.FileID] = true
		}
	}
	if len(verify) > 0 {
		rep, err := a.Scrub(true, verify, nil)
		if err != nil {
			return err
		}
		for _, is := range rep.Issues {
			a.note("quick-verify", fmt.Sprintf("%s: %s on %s (repaired: %v)", is.Path, is.Kind, is.Blade, is.Repaired))
		}
		a.lastRecovery = rep
	}
	return nil
}
