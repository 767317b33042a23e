//go:build !unix

package source

import "errors"

func mkfifo(string, uint32) error {
	return errors.New("no named pipes in the file system on this platform")
}
