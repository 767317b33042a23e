package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// A card copied to a dit array and to a folder: the summary names its
// folder in the array by the path it opens at (below the array's mount
// place, the array not mounted here), with no doubled slash and never
// array:BLADE//PATH, and names the array beside it (its UUID, its
// location as dit's commands take it, not mounted, the command that
// mounts it); the folder destination's path is the folder's, with none
// of the array's fields. Read from the cards' totals and file by file
// alike.
func TestArrayDestinationPathOpens(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(mountplace.Env, filepath.Join(dir, "mounts"))
	var blades []string
	for _, b := range []string{"blade1", "blade2", "blade3"} {
		blades = append(blades, filepath.Join(dir, b))
		require.NoError(t, os.Mkdir(blades[len(blades)-1], 0o755))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "cart"})
	require.NoError(t, err)
	uuid := a.Superblock().ArrayUUID
	require.NoError(t, a.Close())
	folder := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(folder, 0o755))

	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	defer cat.Close()
	j := &catalog.Job{Name: "Day01", Layout: "{job}/{card}", State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "full", Started: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	require.NoError(t, cat.CreateJob(j))
	require.NoError(t, cat.AddCard(&catalog.Card{JobID: j.ID, Seq: 1, Label: "A001", Path: filepath.Join(dir, "cards", "A001"), State: StateVerified}))
	for i, root := range []string{blades[0], folder} {
		require.NoError(t, cat.AddDest(&catalog.Dest{JobID: j.ID, Seq: i, Path: root}))
	}

	place := mountplace.Default(uuid, "cart")
	for _, load := range []func(*catalog.Catalog, int64) (*Summary, error){LoadSummary, LoadFileByFile} {
		s, err := load(cat, j.ID)
		require.NoError(t, err)
		require.Len(t, s.Cards, 1)
		ds := s.Cards[0].Destinations
		require.Len(t, ds, 2)
		require.Equal(t, filepath.Join(place, "Day01", "A001"), ds[0].Path, "below the array's mount place")
		require.Equal(t, uuid, ds[0].ArrayUUID)
		require.Equal(t, "array:"+blades[0]+"//Day01/A001", ds[0].ArrayPath, "what dit array ls and dit mhl verify take")
		require.NotNil(t, ds[0].ArrayMounted)
		require.False(t, *ds[0].ArrayMounted)
		require.Equal(t, "dit array mount "+blades[0], ds[0].MountCommand)
		require.Equal(t, DestSummary{Path: filepath.Join(folder, "Day01", "A001")}, ds[1], "a folder: its path, no array")

		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back struct {
			Cards []struct {
				Destinations []map[string]any `json:"destinations"`
			} `json:"cards"`
		}
		require.NoError(t, json.Unmarshal(b, &back))
		arr, fold := back.Cards[0].Destinations[0], back.Cards[0].Destinations[1]
		require.Equal(t, false, arr["array_mounted"], "said not mounted, not left out")
		require.False(t, strings.Contains(arr["path"].(string), "//") || strings.HasPrefix(arr["path"].(string), "array:"), arr["path"])
		for _, k := range []string{"array_uuid", "array_path", "array_mounted", "mount_command"} {
			require.NotContains(t, fold, k, "a folder destination")
		}
	}
}
