//go:build !linux

package speedtest

// fsid: no filesystem id that outlives a remount is read here yet (macOS's
// f_fsid is the device number, which a reconnect changes).
func fsid(string) string { return "" }

func deviceOf(string) string { return "" }
