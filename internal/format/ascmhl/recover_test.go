package ascmhl

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// a folder with one file and a history of gens generations by tool.
func recoverScope(t *testing.T, gens int, tool string) (string, *OSStore, *Manifest) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.mov"), []byte("a"), 0o644))
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	v := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("a")).Get(hashing.MD5)
	m := &Manifest{Created: t0, Host: "h", Tool: tool, Process: ProcessTransfer,
		Files: []File{{Path: "a.mov", Size: 1, Hashes: []Hash{{Algo: hashing.MD5, Value: v, Action: Original}}}}}
	var h *History
	for i := 0; i < gens; i++ {
		_, err := Append(st, h, m, "X")
		require.NoError(t, err)
		h, err = LoadHistory(st)
		require.NoError(t, err)
	}
	return dir, st, m
}

func historyOK(t *testing.T, st Store, gens int) {
	t.Helper()
	res, err := Verify(context.Background(), st, VerifyOptions{AllHashes: true})
	require.NoError(t, err)
	require.True(t, res.OK(), "%v", res.Findings)
	require.Len(t, res.History.Generations, gens)
}

// A crash after dit wrote generation 2's manifest, before the chain: the
// manifest is removed (written again by the redo) and the temp goes.
func TestRecoverRemovesAnUncommittedGeneration(t *testing.T) {
	dir, st, m := recoverScope(t, 1, "dit")
	data, err := m.Marshal()
	require.NoError(t, err)
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+ManifestName(2, "X", t0), data, false))
	tmp := filepath.Join(dir, HistoryDir, "."+ChainFile+".0123456789ab"+tempSuffix)
	require.NoError(t, os.WriteFile(tmp, []byte("<ascmhldirectory"), 0o644)) // torn: never synced
	h, err := LoadHistory(st)
	require.NoError(t, err)
	require.NotEmpty(t, h.Problems, "before recovery the history does not verify")

	did, err := Recover(st, ditScope)
	require.NoError(t, err)
	require.Len(t, did, 2, "%v", did)
	require.NoFileExists(t, tmp)
	require.NoFileExists(t, filepath.Join(dir, HistoryDir, ManifestName(2, "X", t0)))
	historyOK(t, st, 1)
}

// A crash between removing the old chain and renaming the new one (a dit
// array, whose renames never replace): the complete temp finishes it.
func TestRecoverFinishesTheChainFromItsTemp(t *testing.T) {
	dir, st, m := recoverScope(t, 1, "dit")
	h, err := LoadHistory(st)
	require.NoError(t, err)
	data, err := m.Marshal()
	require.NoError(t, err)
	name := ManifestName(2, "X", t0)
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+name, data, false))
	chain := []ChainEntry{{Seq: 1, Path: h.Generations[0].File, C4: h.Generations[0].C4}, {Seq: 2, Path: name, C4: C4(data)}}
	tmp := filepath.Join(dir, HistoryDir, "."+ChainFile+".12345"+tempSuffix)
	require.NoError(t, os.WriteFile(tmp, MarshalChain(chain), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, HistoryDir, ChainFile)))

	did, err := Recover(st, ditScope)
	require.NoError(t, err)
	require.NotEmpty(t, did)
	require.NoFileExists(t, tmp)
	historyOK(t, st, 2)
}

// A manifest another tool left outside the chain is not dit's to remove:
// the damage stays for the verifier to report.
func TestRecoverLeavesOtherToolsAlone(t *testing.T) {
	dir, st, m := recoverScope(t, 1, "ascmhl")
	data, err := m.Marshal()
	require.NoError(t, err)
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+ManifestName(2, "X", t0), data, false))
	did, err := Recover(st, ditScope)
	require.NoError(t, err)
	require.Empty(t, did)
	require.FileExists(t, filepath.Join(dir, HistoryDir, ManifestName(2, "X", t0)))
	h, err := LoadHistory(st)
	require.NoError(t, err)
	require.NotEmpty(t, h.Problems)
}

// A first generation interrupted before its chain: nothing was committed,
// the folder reads as having no history, and a new one can be written.
func TestRecoverFirstGeneration(t *testing.T) {
	dir, st, m := recoverScope(t, 0, "dit")
	data, err := m.Marshal()
	require.NoError(t, err)
	require.NoError(t, st.MkdirAll(HistoryDir))
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+ManifestName(1, "X", t0), data, false))
	_, err = Recover(st, ditScope)
	require.NoError(t, err)
	require.NoDirExists(t, filepath.Join(dir, HistoryDir))
	_, err = LoadHistory(st)
	require.ErrorIs(t, err, ErrNoHistory)
	_, err = Append(st, nil, m, "X")
	require.NoError(t, err)
	historyOK(t, st, 1)
}

// ditScope takes every manifest by the tool "dit" as the writer's own.
var ditScope = RecoverScope{Own: func(m *Manifest) bool { return m.Tool == "dit" }}

// What was copied there (a card's own history) is never touched, even when
// it looks like an interrupted generation of dit's.
func TestRecoverKeepsWhatWasCopied(t *testing.T) {
	dir, st, m := recoverScope(t, 1, "dit")
	data, err := m.Marshal()
	require.NoError(t, err)
	name := ManifestName(2, "X", t0)
	require.NoError(t, st.WriteFileAtomic(HistoryDir+"/"+name, data, false))
	tmp := "." + ChainFile + ".0123456789ab" + tempSuffix
	require.NoError(t, os.WriteFile(filepath.Join(dir, HistoryDir, tmp), []byte("x"), 0o644))
	copied := map[string]bool{HistoryDir + "/" + name: true, HistoryDir + "/" + tmp: true}
	did, err := Recover(st, RecoverScope{Own: ditScope.Own, Keep: func(rel string) bool { return copied[rel] }})
	require.NoError(t, err)
	require.Empty(t, did)
	require.FileExists(t, filepath.Join(dir, HistoryDir, name))
	require.FileExists(t, filepath.Join(dir, HistoryDir, tmp))
	// Not its own: left too.
	did, err = Recover(st, RecoverScope{Own: func(*Manifest) bool { return false }})
	require.NoError(t, err)
	require.Empty(t, did)
	require.FileExists(t, filepath.Join(dir, HistoryDir, name))
}
