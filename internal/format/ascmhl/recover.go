package ascmhl

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// ditTempName matches the temporary names dit writes a file under before
// renaming it into place (".<name>.<random>.dit-tmp"; OSStore uses 12 hex
// digits, the engine's filesystems digits).
var ditTempName = regexp.MustCompile(`^\..+\.[0-9a-f]+\` + tempSuffix + `$`)

// IsTempName reports whether name (a base name) is one of dit's temps.
func IsTempName(name string) bool { return ditTempName.MatchString(name) }

// Recover finishes or undoes a generation that a crash or a power cut
// interrupted, so that the history in st verifies again. The chain is
// the commit point of a generation (the manifest is written first, then
// the chain), so after a crash the ascmhl folder can hold:
//
//   - temps of dit's own (".ascmhl_chain.xml.<hex>.dit-tmp", ...): removed,
//     once they have been looked at;
//   - a manifest newer than every generation of the chain (or with no
//     chain at all): when the newest complete chain temp lists it with its
//     exact c4 (the crash came between writing the new chain and renaming
//     it; on a dit array, whose renames never replace, between removing the
//     old chain and renaming the new one), the chain is finished from that
//     temp; otherwise, if dit wrote the manifest (its creator tool is dit),
//     it is removed: the generation never happened and is written again.
//
// Anything else (a manifest of another writer missing from the chain, a
// manifest in the middle of the chain changed or gone, anything copied
// there with a card) is left for LoadHistory to report as damage: Recover
// never removes or rewrites what this writer did not write (scope). It
// returns what it did, one line each.
// RecoverScope says what Recover may touch. Own reports whether a manifest
// was written by this very writer (dit: this job, this card, this folder);
// Keep whether a name (slash path in the scope) is a file that was copied
// there (a card's own history copied with the card): never removed or
// rewritten, whatever it looks like.
type RecoverScope struct {
	Own  func(m *Manifest) bool
	Keep func(rel string) bool
}

func (r RecoverScope) keep(name string) bool { return r.Keep != nil && r.Keep(HistoryDir+"/"+name) }
func (r RecoverScope) own(m *Manifest) bool  { return r.Own != nil && r.Own(m) }

func Recover(st Store, scope RecoverScope) ([]string, error) {
	fi, err := st.Lstat(HistoryDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, nil
	}
	ents, err := st.ReadDir(HistoryDir)
	if err != nil {
		return nil, err
	}
	var did []string
	var temps, chainTemps []string
	manifests := map[string]int{} // name -> generation number
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir():
		case scope.keep(name):
			// Copied with the card: not this writer's to finish or undo.
		case IsTempName(name):
			temps = append(temps, name)
			if strings.HasPrefix(name, "."+ChainFile+".") {
				chainTemps = append(chainTemps, name)
			}
		default:
			if m := manifestName.FindStringSubmatch(name); m != nil && !strings.HasPrefix(name, "._") {
				n, _ := strconv.Atoi(m[1])
				manifests[name] = n
			}
		}
	}
	var chain []ChainEntry
	chainData, err := st.ReadFile(HistoryDir + "/" + ChainFile)
	haveChain := err == nil
	switch {
	case err == nil:
		if chain, err = ParseChain(chainData); err != nil {
			return did, nil // damaged: LoadHistory says so; nothing is touched
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	inChain, last := map[string]bool{}, 0
	for _, c := range chain {
		inChain[c.Path] = true
		last = max(last, c.Seq)
	}
	var pending []string // this writer's manifests newer than the chain
	for name, n := range manifests {
		if inChain[name] || n <= last {
			continue
		}
		data, err := st.ReadFile(HistoryDir + "/" + name)
		if err != nil {
			return did, err
		}
		// A manifest is written completely (synced) before it gets its
		// name: one that does not parse, or another writer's, is left for
		// LoadHistory to report.
		if m, _, perr := ParseManifest(data); perr != nil || !scope.own(m) {
			return did, nil
		}
		pending = append(pending, name)
	}
	if len(pending) > 0 {
		if best := bestChainTemp(st, chainTemps, chain, pending); best != nil && !scope.keep(ChainFile) {
			if err := st.WriteFileAtomic(HistoryDir+"/"+ChainFile, MarshalChain(best), true); err != nil {
				return did, fmt.Errorf("finishing the interrupted generation (rewriting %s/%s): %w", HistoryDir, ChainFile, err)
			}
			did = append(did, fmt.Sprintf("finished an interrupted generation: %s/%s now lists %s", HistoryDir, ChainFile, strings.Join(pending, ", ")))
		} else {
			for _, name := range pending {
				if err := st.Remove(HistoryDir + "/" + name); err != nil {
					return did, fmt.Errorf("removing the interrupted generation %s/%s: %w", HistoryDir, name, err)
				}
				did = append(did, fmt.Sprintf("removed %s/%s, a generation a crash interrupted before it was in the chain (it is written again)", HistoryDir, name))
			}
		}
	}
	for _, name := range temps {
		if err := st.Remove(HistoryDir + "/" + name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return did, fmt.Errorf("removing the temp %s/%s: %w", HistoryDir, name, err)
		}
		did = append(did, fmt.Sprintf("removed %s/%s, a temp a crash left", HistoryDir, name))
	}
	if !haveChain && len(manifests) == len(pending) && len(pending) > 0 {
		// Nothing was ever committed here: an empty ascmhl folder would be
		// read as a history without its chain.
		if left, err := st.ReadDir(HistoryDir); err == nil && len(left) == 0 {
			if err := st.Remove(HistoryDir); err == nil {
				did = append(did, fmt.Sprintf("removed the empty %s folder of an interrupted first generation", HistoryDir))
			}
		}
	}
	return did, nil
}

// bestChainTemp returns the entries of the longest chain temp that keeps
// every generation of chain as it is, lists every pending manifest, and
// whose every entry matches its manifest's bytes; nil if none does.
func bestChainTemp(st Store, temps []string, chain []ChainEntry, pending []string) []ChainEntry {
	var best []ChainEntry
	for _, name := range temps {
		data, err := st.ReadFile(HistoryDir + "/" + name)
		if err != nil {
			continue
		}
		cand, err := ParseChain(data)
		if err != nil || len(cand) < len(chain)+len(pending) || len(cand) <= len(best) {
			continue
		}
		ok := true
		for i, c := range chain {
			ok = ok && cand[i] == c
		}
		listed := map[string]bool{}
		for _, c := range cand {
			listed[c.Path] = true
			if !ok {
				break
			}
			b, err := st.ReadFile(HistoryDir + "/" + c.Path)
			ok = err == nil && C4(b) == c.C4
		}
		for _, p := range pending {
			ok = ok && listed[p]
		}
		if ok {
			best = cand
		}
	}
	return best
}
