package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/dit-org/dit/internal/catalog"
)

// newGenDocsCommand writes dit's man pages (section 1, one a command) into
// a folder: make install and make dist use it. Hidden: it is for packagers.
// Shell completions come from cobra's own `dit completion SHELL`.
func newGenDocsCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:    "gen-docs DIR",
		Short:  "Write dit's man pages (dit.1, dit-offload.1, ...) into DIR",
		Args:   cobra.ExactArgs(1),
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			// The build date, not today's, keeps the pages reproducible.
			h := &doc.GenManHeader{Title: "DIT", Section: "1", Source: "dit " + version, Manual: "dit manual"}
			if t, err := parseBuildDate(date); err == nil {
				h.Date = &t
			}
			root.DisableAutoGenTag = true
			// The help names this machine's catalog path; a man page
			// names where it is for any user.
			generalize(root, catalog.DefaultPath(), "~/.local/share/dit/catalog.db (macOS: ~/Library/Application Support/dit/catalog.db)")
			if err := doc.GenManTree(root, h, args[0]); err != nil {
				return fmt.Errorf("writing man pages: %w", err)
			}
			return nil
		},
	}
}

func generalize(c *cobra.Command, from, to string) {
	c.Long = strings.ReplaceAll(c.Long, from, to)
	c.Short = strings.ReplaceAll(c.Short, from, to)
	for _, sub := range c.Commands() {
		generalize(sub, from, to)
	}
}
