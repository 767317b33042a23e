package mhlv1

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
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
			{Path: "bad\xff.mov", Size: 1, Mtime: t0, Sums: hashing.Bytes(algos, []byte("x")), HashDate: t0},
			{Path: "empty--file.txt", Size: 0, Mtime: t0, Sums: hashing.Bytes(algos, nil), HashDate: t0}}}
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
	require.Len(t, x.Hashes, 2, "an empty file is not listed: the schema's size is a positiveInteger")
	require.Contains(t, string(data), "<!-- 1 empty file(s) not listed (MHL v1.1 sizes are positive): empty-%2Dfile.txt -->")
	validate(t, data)
	require.NotContains(t, string(data), "xxh128")
	require.NotContains(t, string(data), "<xxhash64>")

	_, err = (&List{Files: []File{{Path: "e", Sums: hashing.Bytes(algos, nil)}}}).Marshal()
	require.ErrorContains(t, err, "not empty", "a list of empty files only is not written")
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

// validate checks data against MediaHashList_v1_1.xsd with xmllint
// (Debian: libxml2-utils); skipped with a message where it is missing.
func validate(t *testing.T, data []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Log("xmllint is not installed (apt-get install libxml2-utils): MHL v1.1 schema not checked")
		return
	}
	xsd, err := filepath.Abs("testdata/MediaHashList_v1_1.xsd")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "list.mhl")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, p).CombinedOutput()
	require.NoError(t, err, "xmllint --schema %s:\n%s", xsd, out)
}
