// Package source walks a camera card and lists what an offload copies.
//
// A card is any folder (usually a mounted volume). [Scan] lists regular
// files and folders (empty folders are kept) in a stable, sorted order, and
// lists separately everything it will not copy, with the reason: operating
// system metadata (.DS_Store, ._* AppleDouble files, .Spotlight-V100,
// .Trashes, .fseventsd, .TemporaryItems, Thumbs.db, desktop.ini) unless
// hidden files are included, symlinks (never followed), and FIFOs, sockets
// and devices (never opened, so never blocked on). Scan only reads; nothing
// is ever written to a card.
//
// The files are held compact ([Files]: paths front-coded with sizes and
// times, files.go), their full blocks on disk while a card is used
// (spill.go: an unlinked file in dit's cache folder, read back a block
// at a time; internal/fsys.SetSpillDir); a [PathIndex] finds one by its path in the byte order
// of paths (pathindex.go), for the offload's plan and the
// already-offloaded check alike. What is skipped is held the same way
// ([Skips], skiplist.go: paths front-coded and spilled, each kind and
// reason kept once and given by number).
package source
