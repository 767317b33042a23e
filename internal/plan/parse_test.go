package plan

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/hashing"
)

// node is the mapping a YAML snippet holds.
func node(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
	return doc.Content[0]
}

func TestReadDestination(t *testing.T) {
	r := reader{file: "set.yaml"}
	d, err := readDestination(r, node(t, "{name: raid, bus: tb-1, write_rate: 2GB/s, raid: 4, blades: 5, limit: 1GB/s, run: 2}"))
	require.NoError(t, err)
	require.Equal(t, "raid", d.Name)
	require.Equal(t, "tb-1", d.Bus)
	require.Equal(t, 2, d.Run)
	require.Equal(t, 4, d.RAID)
	require.Equal(t, 5, d.Blades)
	require.True(t, d.raidSet)
	require.InDelta(t, 2e9, d.Write, 1)
	require.InDelta(t, 1e9, d.Limit, 1)

	d, err = readDestination(r, node(t, "{name: shuttle}"))
	require.NoError(t, err)
	require.Equal(t, 0, d.Run)
	require.False(t, d.raidSet)

	_, err = readDestination(r, node(t, "{name: raid,\n run: 3}"))
	require.EqualError(t, err, `set.yaml line 2: run must be 1 (the card is read) or 2 (a cascade's second run, from the first copy), got "3"`)
}

func TestReadCPU(t *testing.T) {
	r := reader{file: "set.yaml"}
	top := &Topology{Profiles: DefaultProfiles()}
	require.NoError(t, top.readCPU(r, node(t, "{cores: 6, hash_rates: {md5: 0.5GB/s}}")))
	require.Equal(t, 6.0, top.CPU.Cores)
	require.InDelta(t, 0.5e9, top.CPU.HashRates[hashing.MD5], 1)
	require.InDelta(t, 0.5e9, top.Profiles.HashRates[hashing.MD5], 1, "cpu hash_rates override the profiles'")

	top = &Topology{Profiles: DefaultProfiles()}
	require.NoError(t, top.readCPU(r, node(t, "{cores: auto}")))
	require.Equal(t, 0.0, top.CPU.Cores)

	for _, bad := range []string{"0", "-2", "many"} {
		err := top.readCPU(r, node(t, "{cores: "+bad+"}"))
		require.EqualError(t, err, `set.yaml line 1: cores must be auto or a number of cores above zero, got "`+bad+`"`)
	}
}
