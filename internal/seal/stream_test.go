package seal

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// streamTree is a card folder on a destination as a test lays it out:
// files by path (content), "<dir>" an empty folder, and the states the
// catalog gives the card's files (verified unless said; "foreign": on
// the destination, not the card's).
type streamTree struct {
	name   string
	files  map[string]string
	states map[string]string
	ignore []string
	noDH   bool
}

func streamTrees() []streamTree {
	nfd, nfc := "Sce\u0301ne", "Sc\u00e8ne"
	frames := map[string]string{}
	for i := 0; i < 40; i++ {
		frames["A001/clip_"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".dng"] = strings.Repeat("f", i)
	}
	return []streamTree{
		{name: "nested and sorted by bytes", files: map[string]string{
			"a/b.mov": "ab", "a-c.mov": "ac", "a.x": "ax", "a/b/c/d.wav": "abcd", "a/b/c.mov": "abc",
			"z.mov": "z", "B/1.mov": "b1", "a0/q.r3d": "q",
		}},
		{name: "empty folders", files: map[string]string{
			"empty/<>": "<dir>", "full/x.mov": "x", "full/empty2": "<dir>", "deep/er/est": "<dir>", "deep/file.mov": "f",
		}},
		{name: "unicode NFD and NFC side by side, odd bytes", files: map[string]string{
			nfd + "/take.wav": "nfd", nfc + "/take.wav": "nfc", "日本/クリップ.mov": "jp", "t/\xff": "ff", "t/\xffz": "ffz",
			"x\xffy.mov": "xy", "amp&<lt>.mov": "amp", "t/a": "ta",
		}},
		{name: "ignore patterns and a foreign file", files: map[string]string{
			"clips/a.mov": "a", "clips/.DS_Store": "ds", "clips/b.tmp": "tmp", "proxies/p.mov": "p", "proxies/q.mov": "q",
			"other/note.txt": "not ours", "other/ours.mov": "ours",
		}, states: map[string]string{"other/note.txt": "foreign"}, ignore: []string{"*.tmp", "proxies"}},
		{name: "failed, aside, not read back, skipped", files: map[string]string{
			"ok.mov": "ok", "bad.mov": "bad copy", "moved.mov.dit-failed": "moved copy", "moved.mov-2.mov": "m2",
			"copied.mov": "copied", "skip.mov": "theirs", "gone/x.mov": "<dir>",
		}, states: map[string]string{"bad.mov": offload.StateFailed, "moved.mov": offload.StateFailed,
			"copied.mov": offload.StateCopied, "skip.mov": offload.StateSkipped, "gone/x.mov/y": offload.StateVerified}},
		{name: "a frame sequence", files: frames},
		{name: "no directory hashes", files: map[string]string{"a/b.mov": "ab", "a-c.mov": "ac", "e": "<dir>", "d/e/f.mov": "f"}, noDH: true},
	}
}

// TestStreamedManifestIsTheOldBytes seals trees with the streaming
// writer and compares the manifest's bytes, and the warnings, with what
// the builder before it (oldbuild_test.go) made of the same folder.
func TestStreamedManifestIsTheOldBytes(t *testing.T) {
	finished := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	for _, algos := range [][]hashing.Algo{{hashing.XXH64}, {hashing.MD5, hashing.XXH128, hashing.C4}} {
		for _, tr := range streamTrees() {
			t.Run(hashing.Names(algos)+"/"+tr.name, func(t *testing.T) {
				dest := t.TempDir()
				var list []offload.SealFile
				for rel, content := range tr.files {
					p := filepath.Join(dest, filepath.FromSlash(strings.TrimSuffix(rel, "/<>")))
					if content == "<dir>" {
						require.NoError(t, os.MkdirAll(p, 0o755))
						require.NoError(t, os.Chtimes(p, mtime, mtime))
						continue
					}
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
					require.NoError(t, os.Chtimes(p, mtime, mtime))
				}
				states := map[string]string{}
				for rel, content := range tr.files {
					if content != "<dir>" && !strings.HasSuffix(rel, offload.FailedSuffix) {
						states[rel] = offload.StateVerified
					}
				}
				for rel, s := range tr.states {
					states[rel] = s
				}
				for rel, s := range states {
					if s == "foreign" {
						continue
					}
					sums := hashing.Bytes(algos, []byte("card:"+rel))
					if s != offload.StateFailed {
						sums = hashing.Bytes(algos, []byte(tr.files[rel]))
					}
					sf := offload.SealFile{Rel: rel, Size: int64(len(tr.files[rel])), Mtime: mtime, Sums: sums, State: s}
					if s == offload.StateVerified {
						sf.Verified = finished.Add(-time.Minute)
					}
					list = append(list, sf)
				}
				sort.Slice(list, func(i, j int) bool { return list[i].Rel < list[j].Rel })
				info := offload.SealInfo{JobID: 3, JobName: "day", Host: "cart", ToolVersion: "9.9", Started: finished.Add(-time.Hour),
					Algos: algos, Card: catalog.Card{Label: "A001"}, DestRoot: filepath.Dir(dest), CardDir: dest,
					Finished: finished, Ignore: tr.ignore, NoDirectoryHashes: tr.noDH, Files: offload.SealFileList(list)}

				want, wantWarn := oldManifest(t, info)
				err := (&Sealer{Format: Format{ASC: true}}).Seal(context.Background(), info)
				var got []string
				if w, ok := err.(*offload.SealWarning); ok {
					got = w.Messages
				} else {
					require.NoError(t, err)
				}
				ents, err := os.ReadDir(filepath.Join(dest, ascmhl.HistoryDir))
				require.NoError(t, err)
				var data []byte
				for _, e := range ents {
					if strings.HasSuffix(e.Name(), ".mhl") {
						data, err = os.ReadFile(filepath.Join(dest, ascmhl.HistoryDir, e.Name()))
						require.NoError(t, err)
					}
				}
				require.Equal(t, string(want), string(data))
				if len(wantWarn) == 0 {
					require.Empty(t, got)
				} else {
					require.Len(t, got, 1)
					require.Contains(t, got[0], strings.Join(wantWarn, "; "))
				}
				require.Greater(t, strings.Count(string(data), "<hash>"), 0)
			})
		}
	}
}

// oldManifest is the manifest, and the warnings, the builder before the
// streaming one made of info's folder (as it is now: call it before the
// seal writes there).
func oldManifest(t *testing.T, info offload.SealInfo) ([]byte, []string) {
	t.Helper()
	st, err := ascmhl.OpenOSStore(info.CardDir)
	require.NoError(t, err)
	defer st.Close()
	patterns := (*ascmhl.History)(nil).IgnorePatterns()
	for _, p := range info.Ignore {
		patterns = appendNew(patterns, p)
	}
	ign := ignore.New(patterns)
	ctx := context.Background()
	ls, err := oldList(ctx, st, ign)
	require.NoError(t, err)
	b := &oldBuilder{info: info, st: st, ls: ls, ign: ign}
	require.NoError(t, b.build(ctx))
	m, err := b.manifest(patterns)
	require.NoError(t, err)
	data, err := m.Marshal()
	require.NoError(t, err)
	return data, b.warnings
}

// TestSealRefusesFilesOutOfOrder: the two walks merge the card's files
// with the destination's listing in byte order; files given out of that
// order are an error naming them (the card is not sealed), never a
// manifest missing some.
func TestSealRefusesFilesOutOfOrder(t *testing.T) {
	dest := t.TempDir()
	algos := []hashing.Algo{hashing.XXH64}
	var list []offload.SealFile
	for _, rel := range []string{"b.mov", "a.mov"} {
		require.NoError(t, os.WriteFile(filepath.Join(dest, rel), []byte(rel), 0o644))
		list = append(list, offload.SealFile{Rel: rel, Size: 5, Mtime: mtime, Sums: hashing.Bytes(algos, []byte(rel)), State: offload.StateVerified, Verified: mtime})
	}
	info := offload.SealInfo{JobID: 1, JobName: "day", Host: "cart", ToolVersion: "9.9", Algos: algos, Card: catalog.Card{Label: "A001"},
		DestRoot: filepath.Dir(dest), CardDir: dest, Finished: mtime.Add(time.Hour), Files: offload.SealFileList(list)}
	err := (&Sealer{Format: Format{ASC: true}}).Seal(context.Background(), info)
	require.ErrorContains(t, err, `not in path order: "a.mov" after "b.mov"`)
	_, err = os.Stat(filepath.Join(dest, ascmhl.HistoryDir, ascmhl.ChainFile))
	require.True(t, os.IsNotExist(err), "no chain written")
}
