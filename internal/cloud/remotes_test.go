package cloud

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestCheckDestNamesTheRemotes(t *testing.T) {
	needRclone(t)
	dir := t.TempDir()
	r := &Rclone{Config: "/dev/null", Env: []string{"RCLONE_CONFIG_SHUTTLE_TYPE=local"}, Tries: 1}
	ctx := context.Background()
	names, err := r.Remotes(ctx)
	if err != nil || len(names) != 1 || names[0] != "shuttle" {
		t.Fatalf("Remotes = %v, %v; want [shuttle]", names, err)
	}
	if err := r.CheckDest(ctx, "rclone:shuttle:"+dir); err != nil {
		t.Fatalf("good remote: %v", err)
	}
	err = r.CheckDest(ctx, "rclone:nosuch:bucket/x")
	if err == nil || !strings.Contains(err.Error(), `no remote "nosuch"`) || !strings.Contains(err.Error(), "it has shuttle") {
		t.Fatalf("unknown remote: %v", err)
	}
	if err := r.CheckDest(ctx, "rclone:nocolon"); err == nil {
		t.Fatal("a destination without PATH was taken")
	}
	missing := &Rclone{Bin: "no-such-rclone-binary"}
	if err := missing.CheckDest(ctx, "rclone:x:y"); err == nil || !strings.Contains(err.Error(), "apt-get install rclone") {
		t.Fatalf("no rclone: %v", err)
	}
}

// needRclone skips t under -short (with internal/testneeds's words: this
// package is a leaf and imports nothing of dit) and without rclone.
func needRclone(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (needs rclone): not under -short; make test runs it")
	}
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed (Debian: apt-get install rclone): skipping this test")
	}
}
