package catalog

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

func TestCardStateText(t *testing.T) {
	s := &CardState{SpanFrom: 6291456, Span: "0a1b2c3d4e5f6071",
		Hashers: map[hashing.Algo][]byte{hashing.XXH64: {1, 2, 3}, hashing.MD5: {0xff, 0, 7, 9}}}
	text := s.Encode()
	require.Equal(t, "v1 span=6291456:0a1b2c3d4e5f6071 md5=/wAHCQ== xxh64=AQID", text)
	got, err := ParseCardState(text)
	require.NoError(t, err)
	require.Equal(t, s, got)
	none, err := ParseCardState("")
	require.NoError(t, err)
	require.Nil(t, none)
	for _, bad := range []string{"v2 span=1:0a1b2c3d4e5f6071", "v1 span=x:0a1b2c3d4e5f6071", "v1 span=1:0a1b", "v1 span=1:0a1b2c3d4e5f6071 nohash=AA==", "v1 span=1:0a1b2c3d4e5f6071 md5=!!"} {
		_, err := ParseCardState(bad)
		require.Error(t, err, bad)
	}
}

// A checkpoint's card side (schema version 15) is kept with it, and moves
// to prev with its offset and digest when the next checkpoint of the
// same temp is recorded; a checkpoint of another temp has no prev.
func TestPartialStates(t *testing.T) { eachBackend(t, testPartialStates) }

func testPartialStates(t *testing.T, b backend) {
	c := open(t, b.loc(t))
	j := &Job{Name: "day01", State: JobRunning, Hashes: "md5,xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now(), PID: os.Getpid()}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "copying"}
	require.NoError(t, c.AddCard(k))
	d := &Dest{JobID: j.ID, Path: "/dst"}
	require.NoError(t, c.AddDest(d))
	mt := time.Unix(1700000000, 5)
	p := &Partial{CardID: k.ID, Rel: "BIG.mov", DestID: d.ID, Temp: "/dst/.BIG.mov.1.dit-tmp", Size: 100, Mtime: mt,
		Offset: 10, Digest: "1111111111111111", State: "v1 span=0:aaaaaaaaaaaaaaaa md5=AA=="}
	require.NoError(t, c.PutPartial(p))
	p2 := *p
	p2.Offset, p2.Digest, p2.State = 20, "2222222222222222", "v1 span=10:bbbbbbbbbbbbbbbb md5=AQ=="
	require.NoError(t, c.PutPartial(&p2))
	parts, err := c.Partials(k.ID)
	require.NoError(t, err)
	got := parts["BIG.mov"][d.ID]
	require.NotNil(t, got)
	require.Equal(t, int64(20), got.Offset)
	require.Equal(t, p2.State, got.StateAt(20))
	require.Equal(t, p.State, got.StateAt(10))
	require.Equal(t, "", got.StateAt(15))
	require.Equal(t, "1111111111111111", got.At(10))

	p3 := p2
	p3.Temp, p3.Offset, p3.State = "/dst/.BIG.mov.2.dit-tmp", 30, ""
	require.NoError(t, c.PutPartial(&p3))
	parts, err = c.Partials(k.ID)
	require.NoError(t, err)
	got = parts["BIG.mov"][d.ID]
	require.Equal(t, "", got.State, "a job whose hashers cannot be saved records none")
	require.Equal(t, int64(0), got.PrevOffset)
	require.Equal(t, "", got.PrevState)
}
