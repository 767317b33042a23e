package ascmhl

import (
	"bytes"
	"fmt"
	"io"
)

// ManifestWriter writes a manifest's entries (its files and folders) as
// they come, each through a small buffer to the writer under it: the
// streaming form of [Manifest.Marshal], with the same bytes for the same
// manifest. Entries must come in the manifest's order (each folder after
// everything in it, paths in byte order: a file's key is its path, a
// folder's its path + "/\xff"; see [DirKey]).
type ManifestWriter struct {
	to      io.Writer
	x       xmlWriter
	hashes  bool   // <hashes> is open
	last    string // key of the last entry
	lastDir bool   // the last entry was a folder's
	n       int
	checked bool // entries were checked by the caller (Marshal)
}

// flushAt is how much the buffer holds before it goes to the writer.
const flushAt = 64 << 10

// DirKey is where a folder's entry sorts among the entries of a
// manifest: after everything in it (files sort by their path).
func DirKey(path string) string { return path + "/\xff" }

// WriteManifest writes m as an ASC MHL v2.0 document to w, the entries
// given by entries (m.Files and m.Dirs are not written: give them empty)
// through the ManifestWriter it is handed. It refuses what Marshal
// refuses: an invalid header before anything is written, an invalid
// entry, or one out of order, when it comes (the document is then
// incomplete: write it to a temporary file).
func WriteManifest(w io.Writer, m *Manifest, entries func(*ManifestWriter) error) error {
	head := *m
	head.Files, head.Dirs = nil, nil
	if err := head.check(); err != nil {
		return err
	}
	return writeManifest(w, &head, false, entries)
}

func writeManifest(w io.Writer, m *Manifest, checked bool, entries func(*ManifestWriter) error) error {
	mw := &ManifestWriter{to: w, checked: checked}
	x := &mw.x
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("hashlist", "version", "2.0", "xmlns", Namespace)
	writeHead(x, m)
	if err := entries(mw); err != nil {
		return err
	}
	if mw.hashes {
		x.close("hashes")
	}
	if len(m.References) > 0 {
		x.open("references")
		for _, r := range m.References {
			x.open("hashlistreference")
			x.leaf("path", r.Path)
			x.leaf("c4", r.C4)
			x.close("hashlistreference")
		}
		x.close("references")
	}
	x.close("hashlist")
	return mw.flush()
}

// writeHead writes the creator info and the process info.
func writeHead(w *xmlWriter, m *Manifest) {
	w.open("creatorinfo")
	w.leaf("creationdate", xmlTime(m.Created))
	w.leaf("hostname", m.Host)
	w.leaf("tool", m.Tool, "version", m.ToolVersion)
	for _, a := range m.Authors {
		w.leaf("author", a.Name, "email", a.Email, "phone", a.Phone, "role", a.Role)
	}
	if m.Location != "" {
		w.leaf("location", m.Location)
	}
	if m.Comment != "" {
		w.leaf("comment", m.Comment)
	}
	w.close("creatorinfo")

	w.open("processinfo")
	w.leaf("process", m.Process)
	if len(m.Root) > 0 || m.EmptyRootHash {
		w.open("roothash")
		writeDirHashes(w, m.Root)
		w.close("roothash")
	}
	if len(m.Ignore) > 0 {
		w.open("ignore")
		for _, p := range m.Ignore {
			w.leaf("pattern", p)
		}
		w.close("ignore")
	}
	w.close("processinfo")
}

func (mw *ManifestWriter) flush() error {
	if mw.x.b.Len() == 0 {
		return nil
	}
	_, err := mw.to.Write(mw.x.b.Bytes())
	mw.x.b.Reset()
	return err
}

// order checks that an entry of key comes after the last one.
// A folder's key may equal the file's before it (a file named "\xff" in
// it): Marshal's sort keeps the file first.
func (mw *ManifestWriter) order(key, path string, dir bool) error {
	if mw.n > 0 && (key < mw.last || key == mw.last && (mw.lastDir || !dir)) {
		return fmt.Errorf("ascmhl: %q comes out of order (after %q) or twice", path, mw.last)
	}
	mw.last, mw.lastDir, mw.n = key, dir, mw.n+1
	if !mw.hashes {
		mw.hashes = true
		mw.x.open("hashes")
	}
	return nil
}

// File writes the entry of one file.
func (mw *ManifestWriter) File(f *File) error {
	if !mw.checked {
		if err := checkFile(f); err != nil {
			return err
		}
	}
	if err := mw.order(f.Path, f.Path, false); err != nil {
		return err
	}
	writeFile(&mw.x, f)
	return mw.spill()
}

// Dir writes the entry of one folder.
func (mw *ManifestWriter) Dir(d *Dir) error {
	if !mw.checked && (!ValidName(d.Path) || d.Path == ".") {
		return fmt.Errorf("ascmhl: invalid folder path %q", d.Path)
	}
	if err := mw.order(DirKey(d.Path), d.Path, true); err != nil {
		return err
	}
	writeDir(&mw.x, d)
	return mw.spill()
}

func (mw *ManifestWriter) spill() error {
	if mw.x.b.Len() < flushAt {
		return nil
	}
	return mw.flush()
}

// marshalTo is Marshal's body: m checked, its entries sorted.
func (m *Manifest) marshalTo(b *bytes.Buffer) error {
	head := *m
	head.Files, head.Dirs = nil, nil
	return writeManifest(b, &head, true, func(mw *ManifestWriter) error {
		es := m.entries()
		if len(es) > 0 {
			mw.hashes = true
			mw.x.open("hashes")
		}
		for _, e := range es {
			if e.file != nil {
				writeFile(&mw.x, e.file)
			} else {
				writeDir(&mw.x, e.dir)
			}
			if err := mw.spill(); err != nil {
				return err
			}
		}
		return nil
	})
}
