//go:build !unix

package offload

import "errors"

func mkfifo(string, uint32) error {
	return errors.New("no named pipes in the file system on this platform")
}
