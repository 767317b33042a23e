package ascmhl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// synthStore is a scope whose ascmhl folder is on disk and whose footage
// is made up as it is read: Clips/<folder>/<frame> for folders × perDir
// files of 8 bytes each (the file's number), so that a million-file card
// costs no disk.
type synthStore struct {
	*OSStore
	folders, perDir int
	hide            int // the last hide files of each folder are not listed
}

func (s *synthStore) folder(i int) string { return fmt.Sprintf("A001C%04d", i) }
func (s *synthStore) file(i, j int) string {
	return fmt.Sprintf("A001C%04d_%07d.ari", i, i*s.perDir+j)
}

// content is the bytes of file number n.
func synthContent(n int) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	return b[:]
}

type synthEntry struct {
	name string
	dir  bool
	size int64
}

func (e synthEntry) Name() string { return e.name }
func (e synthEntry) IsDir() bool  { return e.dir }
func (e synthEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e synthEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e synthEntry) Size() int64                { return e.size }
func (e synthEntry) Mode() fs.FileMode          { return e.Type() | 0o644 }
func (e synthEntry) ModTime() time.Time         { return t0 }
func (e synthEntry) Sys() any                   { return nil }

// parse splits a footage path into folder and file numbers.
func (s *synthStore) parse(name string) (dir, file int, depth int) {
	el := strings.Split(name, "/")
	if el[0] != "Clips" {
		return 0, 0, -1
	}
	if len(el) == 1 {
		return 0, 0, 1
	}
	dir, err := strconv.Atoi(strings.TrimPrefix(el[1], "A001C"))
	if err != nil || dir >= s.folders || el[1] != s.folder(dir) {
		return 0, 0, -1
	}
	if len(el) == 2 {
		return dir, 0, 2
	}
	n, err := strconv.Atoi(strings.TrimSuffix(el[2][len("A001C0000_"):], ".ari"))
	if len(el) > 3 || err != nil || n/s.perDir != dir || el[2] != s.file(dir, n%s.perDir) {
		return 0, 0, -1
	}
	return dir, n % s.perDir, 3
}

func (s *synthStore) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "." || name == "" {
		ents, err := s.OSStore.ReadDir(name)
		return append(ents, synthEntry{name: "Clips", dir: true}), err
	}
	dir, _, depth := s.parse(name)
	switch depth {
	case 1:
		out := make([]fs.DirEntry, s.folders)
		for i := range out {
			out[i] = synthEntry{name: s.folder(i), dir: true}
		}
		return out, nil
	case 2:
		out := make([]fs.DirEntry, s.perDir-s.hide)
		for j := range out {
			out[j] = synthEntry{name: s.file(dir, j), size: 8}
		}
		return out, nil
	case 3:
		return nil, fmt.Errorf("%s is not a folder", name)
	}
	return s.OSStore.ReadDir(name)
}

func (s *synthStore) Lstat(name string) (fs.FileInfo, error) {
	if _, _, depth := s.parse(name); depth > 0 {
		return synthEntry{name: filepath.Base(name), dir: depth < 3, size: 8}, nil
	}
	return s.OSStore.Lstat(name)
}

func (s *synthStore) Open(name string) (io.ReadCloser, error) {
	if dir, j, depth := s.parse(name); depth == 3 {
		return io.NopCloser(bytes.NewReader(synthContent(dir*s.perDir + j))), nil
	}
	return s.OSStore.Open(name)
}

// writeLargeHistory writes a one-generation history for s: one <hash> per
// file (path with size and date, an xxh64 with action and hashdate, about
// 220 bytes each, as dit and the reference tool write them) and a
// <directoryhash> per folder. It returns the manifest's size.
func writeLargeHistory(t testing.TB, dir string, s *synthStore) int64 {
	require.NoError(t, os.MkdirAll(filepath.Join(dir, HistoryDir), 0o755))
	name := ManifestName(1, "A001", t0)
	f, err := os.Create(filepath.Join(dir, HistoryDir, name))
	require.NoError(t, err)
	sum := hashing.C4.New()
	cw := &countWriter{w: io.MultiWriter(f, sum)}
	w := bufio.NewWriterSize(cw, 1<<20)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
  <creatorinfo>
    <creationdate>2026-11-20T10:02:13Z</creationdate>
    <hostname>cart-1</hostname>
    <tool version="1.0.0">dit</tool>
  </creatorinfo>
  <processinfo>
    <process>transfer</process>
    <ignore><pattern>.DS_Store</pattern><pattern>ascmhl</pattern><pattern>ascmhl/</pattern></ignore>
  </processinfo>
  <hashes>
`)
	xx := hashing.XXH64.New()
	for i := 0; i < s.folders; i++ {
		for j := 0; j < s.perDir; j++ {
			xx.Reset()
			xx.Write(synthContent(i*s.perDir + j))
			fmt.Fprintf(w, `    <hash>
      <path size="8" lastmodificationdate="2026-11-20T08:12:00Z">Clips/%s/%s</path>
      <xxh64 action="original" hashdate="2026-11-20T10:01:55Z">%s</xxh64>
    </hash>
`, s.folder(i), s.file(i, j), hashing.Encode(hashing.XXH64, xx.Sum(nil)))
		}
		fmt.Fprintf(w, `    <directoryhash>
      <path lastmodificationdate="2026-11-20T08:12:00Z">Clips/%s</path>
      <content><xxh64>0123456789abcdef</xxh64></content>
      <structure><xxh64>0123456789abcdef</xxh64></structure>
    </directoryhash>
`, s.folder(i))
	}
	fmt.Fprintf(w, "  </hashes>\n</hashlist>\n")
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	chain := MarshalChain([]ChainEntry{{Seq: 1, Path: name, C4: hashing.EncodeC4(sum.Sum(nil))}})
	require.NoError(t, os.WriteFile(filepath.Join(dir, HistoryDir, ChainFile), chain, 0o644))
	return cw.n
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// TestVerifyLargeManifestBoundedMemory verifies a history whose manifest
// records 200,000 files (about 44 MB of XML; a million, about 220 MB,
// with DIT_LARGE_MANIFEST=1, as make bench's figures were measured) and
// checks that the heap stays bounded: the manifest is streamed, and each
// record keeps only what the check needs. The figures it logs are quoted
// in the package doc.
func TestVerifyLargeManifestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and verifies a 44 MB manifest (-short)")
	}
	folders := 200
	if os.Getenv("DIT_LARGE_MANIFEST") != "" {
		folders = 1000
	}
	dir := t.TempDir()
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()
	s := &synthStore{OSStore: st, folders: folders, perDir: 1000}
	size := writeLargeHistory(t, dir, s)
	require.Greater(t, size, int64(folders)*200<<10, "a manifest of more than 200 kB a folder")

	var res *VerifyResult
	start := time.Now()
	peak := peakLive(func() {
		res, err = Verify(context.Background(), s, VerifyOptions{})
	})
	took := time.Since(start)
	require.NoError(t, err)
	require.True(t, res.OK(), "%d findings, first: %v", len(res.Findings), res.Findings[:min(3, len(res.Findings))])
	require.Equal(t, folders*1000, res.Files)
	require.Nil(t, res.History.Generations[0].Manifest.Files, "a large history keeps its index only")
	t.Logf("verify: manifest %d MB, %d files, peak live heap %d MB, %s", size>>20, res.Files, peak>>20, took.Round(100*time.Millisecond))
	require.Less(t, peak, uint64(16<<20), "peak live heap (8 MB measured; a record of every file in memory, ~80-124 B each, would add 16-25 MB at 200,000 files) while verifying a %d MB manifest", size>>20)

	// Missing files are each named.
	res = nil
	s.hide = 1 // the last file of every folder is gone
	res, err = Verify(context.Background(), s, VerifyOptions{})
	require.NoError(t, err)
	require.Len(t, res.Findings, folders)
	require.Equal(t, Finding{Kind: FindMissing, Path: "Clips/A001C0000/A001C0000_0000999.ari", Detail: "recorded in the history, not in the folder"}, res.Findings[0])
}
