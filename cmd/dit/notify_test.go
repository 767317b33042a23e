package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/notify"
)

// "" is the user's config file, which may be absent; "none" is off.
func TestNotifyConfigDefaultPath(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", xdg)
	cfg, err := loadNotifyConfig("")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "dit"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(xdg, "dit", "config.yaml"), []byte("notify:\n  webhook:\n    url: http://127.0.0.1:9/x\n"), 0o644))
	if p, _ := notify.DefaultPath(); p == filepath.Join(xdg, "dit", "config.yaml") {
		cfg, err = loadNotifyConfig("")
		require.NoError(t, err)
		require.Len(t, cfg.Webhooks, 1)
	}
	cfg, err = loadNotifyConfig("none")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
	_, err = loadNotifyConfig(filepath.Join(xdg, "missing.yaml"))
	require.ErrorContains(t, err, "missing.yaml")
}
