package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// HashOptions are the flags of dit hash.
type HashOptions struct {
	Hashes string
}

func newHashCommand(g *GlobalOptions) *cobra.Command {
	var o HashOptions
	cmd := &cobra.Command{
		Use:   "hash [--hash md5,xxh64] FILE...",
		Short: "Print the hashes of files (ASC MHL text form), computed in one pass",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			algos, err := hashing.ParseList(o.Hashes)
			if err != nil {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--hash: %w", err)}
			}
			for _, p := range args {
				fi, err := os.Stat(p)
				switch {
				case errors.Is(err, os.ErrNotExist):
					return usagef("FILE %s does not exist: give the files to hash", p)
				case err == nil && fi.IsDir():
					return usagef("FILE %s is a folder: give the files to hash (dit mhl create hashes a folder)", p)
				}
			}
			m := hashing.NewMulti(algos, 4)
			defer m.Close()
			free := make(chan []byte, 4)
			for i := 0; i < 4; i++ {
				free <- make([]byte, 4<<20)
			}
			failed := false
			for _, p := range args {
				if err := hashOne(p, m, free); err != nil {
					fmt.Fprintf(g.stderr, "dit: %v\n", err)
					failed = true
					continue
				}
				s := m.Sum()
				for _, a := range algos {
					fmt.Fprintf(g.stdout, "%s  %s  %s\n", a, s.Get(a), p)
				}
			}
			if failed {
				return &exitError{code: offload.ExitSomeFailed}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Hashes, "hash", "xxh64", "hashes: md5,sha1,xxh64,xxh3,xxh128,c4,blake3")
	return cmd
}

func hashOne(p string, m *hashing.Multi, free chan []byte) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		b := <-free
		n, err := io.ReadFull(f, b)
		if n > 0 {
			m.Write(b[:n], func() { free <- b })
		} else {
			free <- b
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			m.Reset()
			return err
		}
	}
}
