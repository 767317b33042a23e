package offload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A file event's copies carry typed states (live.CopyState: a front end
// switches on CopyVerified, CopySkipped..., never on words) in the same
// JSON words as before: a file matched on one destination and left alone
// on the other (--on-conflict skip) reads verified and skipped.
func TestFileEventCopyStatesAreTyped(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"CLIPS/C001.mov": bigContent(40_000, 1)})
	d1, d2 := e.dest("d1"), e.dest("d2")
	clips := filepath.Join(d2, "day01", "A001", "CLIPS")
	require.NoError(t, os.MkdirAll(clips, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(clips, "C001.mov"), []byte("someone else's file"), 0o644))
	o := e.opts([]string{card}, []string{d1, d2})
	o.OnConflict = ConflictSkip
	s, err := e.run(o)
	require.NoError(t, err)
	require.False(t, s.Cards[0].SafeToFormat)

	var file *Event
	for i := range e.events {
		if e.events[i].Type == EvFile {
			file = &e.events[i]
		}
	}
	require.NotNil(t, file, "no file event")
	require.Len(t, file.Copies, 2)
	require.Equal(t, CopyVerified, file.Copies[0].State)
	require.False(t, file.Copies[0].State.Bad())
	require.Equal(t, CopySkipped, file.Copies[1].State)
	require.True(t, file.Copies[1].State.Bad(), "a copy left alone is not the card's file")

	b, err := json.Marshal(file.Copies)
	require.NoError(t, err)
	var words []map[string]any
	require.NoError(t, json.Unmarshal(b, &words))
	require.Equal(t, "verified", words[0]["state"])
	require.Equal(t, "skipped", words[1]["state"])
	require.Equal(t, d2, words[1]["dest"])
	require.Contains(t, words[1]["error"], "--on-conflict skip")
}
