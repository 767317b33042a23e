package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/internal/units"
)

// TestdataOptions are the flags of dit testdata cards.
type TestdataOptions struct {
	Out   string
	Cards int
	Size  string
	Style string
	Seed  int64
	Video bool
}

func newTestdataCommand(g *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testdata",
		Short: "Generate test material",
	}
	var o TestdataOptions
	cards := &cobra.Command{
		Use:   "cards --out DIR",
		Short: "Generate deterministic, realistic camera cards (clips, X-OCN-like frames, macOS junk)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			size, err := o.check()
			if err != nil {
				return err
			}
			opts := testcards.Options{Out: o.Out, Cards: o.Cards, Size: size, Style: o.Style, Seed: o.Seed}
			if o.Video {
				ff, err := testcards.FindFFmpeg()
				if err != nil {
					fmt.Fprintf(g.stderr, "dit: note: --video: %v: the clips' movies are pseudo-random bytes instead, so reports will have no thumbnails\n", err)
				}
				opts.FFmpeg = ff
			}
			got, err := testcards.Generate(cmd.Context(), opts)
			for _, c := range got {
				fmt.Fprintf(g.stdout, "%s\t%d files\t%s\n", c.Path, c.Files, units.FormatBytes(c.Bytes))
			}
			return err
		},
	}
	f := cards.Flags()
	f.StringVar(&o.Out, "out", "", "parent `folder` of the cards")
	f.IntVar(&o.Cards, "cards", 2, "number of cards")
	f.StringVar(&o.Size, "size", "2GB", "footage per card (decimal units: 2GB = 2x10^9 bytes)")
	f.StringVar(&o.Style, "style", "clips", "clips, frames (Sony X-OCN-like, 2-8 MB a frame), dng (DNG/ARRIRAW-like sequences, 100-500 KB a frame) or mixed")
	f.Int64Var(&o.Seed, "seed", 1, "seed: the same seed gives the same bytes")
	f.BoolVar(&o.Video, "video", false, "make the clips' movies real with ffmpeg (a few seconds of ProRes 4444 XQ with the sidecar's timecode, padded to size), so reports get thumbnails; without ffmpeg, a note and random bytes")
	cmd.AddCommand(cards)
	return cmd
}

// check refuses what dit testdata cards cannot make, before anything is
// written: every value names its flag. It returns the size per card.
func (o TestdataOptions) check() (int64, error) {
	size, err := units.ParseBytes(o.Size)
	if err != nil || size <= 0 {
		return 0, usagef("--size %q: give the footage per card above zero, e.g. 50MB or 2GB (decimal units)", o.Size)
	}
	if o.Out == "" {
		return 0, usagef("--out DIR is required: the folder the cards are made in")
	}
	if fi, err := os.Stat(o.Out); err == nil && !fi.IsDir() {
		return 0, usagef("--out %s is a file: give a folder (made if it is not there)", o.Out)
	}
	if o.Cards < 1 || o.Cards > testcards.MaxCards {
		return 0, usagef("--cards %d: give 1 to %d cards", o.Cards, testcards.MaxCards)
	}
	styles := []string{testcards.StyleClips, testcards.StyleFrames, testcards.StyleDNG, testcards.StyleMixed}
	if !slices.Contains(styles, o.Style) {
		return 0, usagef("--style %q: give %s", o.Style, strings.Join(styles, ", "))
	}
	return size, nil
}
