package mhlv1

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

func TestMarshal(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	algos := []hashing.Algo{hashing.MD5, hashing.XXH64, hashing.XXH128}
	l := List{Username: "dit", Hostname: "cart", Tool: "dit 1.0", Start: t0, Finish: t0.Add(time.Hour),
		Files: []File{{Path: "a & <b>.mov", Size: 5, Mtime: t0, Sums: hashing.Bytes(algos, []byte("hello")), HashDate: t0},
			{Path: "bad\xff.mov", Size: 0, Mtime: t0, Sums: hashing.Bytes(algos, nil), HashDate: t0}}}
	data, err := l.Marshal()
	require.NoError(t, err)
	var x struct {
		Version string `xml:"version,attr"`
		Hashes  []struct {
			File       string `xml:"file"`
			Size       int64  `xml:"size"`
			MD5        string `xml:"md5"`
			XXHash64BE string `xml:"xxhash64be"`
			HashDate   string `xml:"hashdate"`
		} `xml:"hash"`
	}
	require.NoError(t, xml.Unmarshal(data, &x))
	require.Equal(t, "1.1", x.Version)
	require.Equal(t, "a & <b>.mov", x.Hashes[0].File)
	require.Equal(t, "5d41402abc4b2a76b9719d911017c592", x.Hashes[0].MD5)
	require.Equal(t, "26c7827d889f6da3", x.Hashes[0].XXHash64BE, "big-endian xxh64, the ASC MHL text")
	require.Equal(t, "2026-11-20T08:30:00Z", x.Hashes[0].HashDate)
	require.Equal(t, "bad%FF.mov", x.Hashes[1].File)
	require.NotContains(t, string(data), "xxh128")
	require.NotContains(t, string(data), "<xxhash64>")

	l.Files[0].Sums = hashing.Bytes([]hashing.Algo{hashing.C4}, nil)
	_, err = l.Marshal()
	require.ErrorContains(t, err, "MHL v1.1 cannot record it")
	_, err = (&List{}).Marshal()
	require.Error(t, err)
	require.Equal(t, "A001_2026-11-20_083000.mhl", FileName("A001", t0))
	require.Equal(t, "A_b_c_2026-11-20_083000.mhl", FileName("A/b\x01c", t0))
	require.True(t, Supported([]hashing.Algo{hashing.C4, hashing.SHA1}))
	require.False(t, Supported([]hashing.Algo{hashing.C4, hashing.XXH3}))
	require.True(t, strings.HasPrefix(string(data), `<?xml version="1.0" encoding="UTF-8"?>`))
}
