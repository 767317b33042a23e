package fsys

import "os"

// CreateUnlinked makes a new file in dir (made when missing, for this
// user only) named after pattern (os.CreateTemp's), and unlinks it at
// once: its space is the process's until the file is closed, and
// nothing is left behind by a crash. Where an open file cannot be
// unlinked (Windows) it is an error, and the file is gone. dit keeps a
// card's list, its plan's marks and a history's index there (the
// caller's spill folder, ~/.cache/dit).
func CreateUnlinked(dir, pattern string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
