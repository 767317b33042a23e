package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/raid"
)

// Demo is a ready-made simulated job: generated cards, a 4-blade RAID 4
// dit array and a shuttle folder, and a topology preset that puts the
// cards in field readers (one CFast reader on a 5 Gbit/s port, so the
// plan has something to warn about).
type Demo struct {
	Dir      string   // everything lives here
	Cards    []string // card folders
	Dests    []string // the array's first blade, the shuttle
	Topology string   // the preset file
}

// PrepareDemo makes a Demo in dir (which must be empty or absent): two
// generated cards of about size bytes each (internal/testcards, seed 1).
func PrepareDemo(ctx context.Context, dir string, size int64) (*Demo, error) {
	d := &Demo{Dir: dir}
	cards, err := testcards.Generate(ctx, testcards.Options{Out: filepath.Join(dir, "cards"), Cards: 2, Size: size, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("generating the demo cards: %w", err)
	}
	for _, c := range cards {
		d.Cards = append(d.Cards, c.Path)
	}
	var blades []string
	for i := 1; i <= 4; i++ {
		b := filepath.Join(dir, fmt.Sprintf("blade%d", i))
		if err := os.MkdirAll(b, 0o755); err != nil {
			return nil, err
		}
		blades = append(blades, b)
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "demo-raid", Writer: "dit-gui demo"})
	if err != nil {
		return nil, fmt.Errorf("creating the demo array: %w", err)
	}
	if err := a.Close(); err != nil {
		return nil, err
	}
	shuttle := filepath.Join(dir, "shuttle")
	if err := os.MkdirAll(shuttle, 0o755); err != nil {
		return nil, err
	}
	d.Dests = []string{blades[0], shuttle}
	q := strconv.Quote
	topo := fmt.Sprintf(`# dit-gui --demo: two CFast 2.0 cards, one in a reader on a 10 Gbit/s
# port, one on a 5 Gbit/s port; a Thunderbolt RAID 4 of four NVMe blades
# and a USB shuttle SSD.
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: usb-b, kind: usb3.0}
  - {name: usb-c, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: %s, path: %s, media: cfast2, bus: usb-a}
  - {name: %s, path: %s, media: cfast2, bus: usb-b}
destinations:
  - {name: raid, path: %s, bus: tb-1, kind: nvme-raid4-tb3}
  - {name: shuttle, path: %s, bus: usb-c, kind: ssd-usb}
`, q(cards[0].Label), q(cards[0].Path), q(cards[1].Label), q(cards[1].Path), q(blades[0]), q(shuttle))
	d.Topology = filepath.Join(dir, "demo-topology.yaml")
	if err := os.WriteFile(d.Topology, []byte(topo), 0o644); err != nil {
		return nil, err
	}
	return d, nil
}

// Spoil makes the demo job fail one file: a different file is put where
// the last card's first clip is copied on the shuttle (the job is named
// name, the default layout), as an older shuttle could hold; dit never
// overwrites it, so that card ends FAILED on the shuttle and safe on
// nothing (dit-gui --demo-fail: a failed job to look at). It returns the
// file's path.
func (d *Demo) Spoil(name string) (string, error) {
	card := d.Cards[len(d.Cards)-1]
	var first string
	err := filepath.WalkDir(card, func(p string, e os.DirEntry, err error) error {
		if err != nil || first != "" {
			return err
		}
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && strings.EqualFold(filepath.Ext(p), ".mov") {
			first = p
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if first == "" {
		return "", fmt.Errorf("no clip on %s", card)
	}
	rel, err := filepath.Rel(card, first)
	if err != nil {
		return "", err
	}
	p := filepath.Join(d.Dests[len(d.Dests)-1], name, filepath.Base(card), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, []byte("an older file of the same name\n"), 0o644)
}
