package ignore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatch(t *testing.T) {
	ig := New([]string{".DS_Store", "ascmhl", "ascmhl/", "*.RMD", "/top.txt", "logs/", "a/**/z", "!keep.RMD", Escape("A001_[x]*.mhl")})
	cases := map[string]bool{
		".DS_Store": true, "sub/.DS_Store": true, "ascmhl/0001.mhl": true, "sub/ascmhl/x": true,
		"clip.RMD": true, "deep/clip.RMD": true, "keep.RMD": false,
		"top.txt": true, "sub/top.txt": false,
		"logs/a": true, "x/logs/b": true, "logs": false, // logs/ matches folders only; a file named logs is kept
		"a/z": true, "a/b/c/z": true, "b/z": false,
		"A001_[x]*.mhl": true, "A001_x-.mhl": false,
		"clip.mov": false,
	}
	for p, want := range cases {
		require.Equal(t, want, ig.Match(p, false), p)
	}
	require.True(t, ig.Match("logs", true))
}

// TestInsideIgnoredFolder: as in git, a path inside an ignored folder stays
// ignored even when a later pattern re-includes its name.
func TestInsideIgnoredFolder(t *testing.T) {
	ig := New([]string{"Cache/", "!Cache/keep.mov", "!*.mov"})
	require.True(t, ig.Match("Cache/keep.mov", false))
	require.True(t, ig.Match("Clips/Cache/a.mov", false))
	require.False(t, ig.Match("Clips/a.mov", false))
}

func TestCommentsBlanksAndNil(t *testing.T) {
	pats := []string{"# a comment", "", "   ", "\\#literal", "trailing  ", "esc\\ "}
	ig := New(pats)
	require.Equal(t, pats, ig.Patterns())
	require.True(t, ig.Match("#literal", false))
	require.False(t, ig.Match("# a comment", false))
	require.True(t, ig.Match("trailing", false))
	require.True(t, ig.Match("esc ", false))
	require.False(t, ig.Match("esc", false))

	var none *Matcher
	require.False(t, none.Match("anything", false))
	require.False(t, New(nil).Match("anything", true))
}

func TestEscape(t *testing.T) {
	for _, name := range []string{"a*b?.mov", "[x].mhl", "!bang", "#hash", "space ", "back\\slash"} {
		ig := New([]string{Escape(name)})
		require.True(t, ig.Match(name, false), name)
		require.True(t, ig.Match("deep/"+name, false), name)
		require.False(t, ig.Match(name+"x", false), name)
	}
}
