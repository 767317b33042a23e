package ascmhl

import (
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// Tree is the content of a scope as directory hashes see it: every folder
// (relative path, "." is the root) and every file with its hash values.
// Ignored entries must already be left out.
type Tree struct {
	Dirs  []string
	Files map[string]map[hashing.Algo]string
	// Value, when set, gives a file's values instead of Files' maps
	// (Files then lists the files, each mapped to nil or not): a caller
	// that holds the values in its own form keeps no map per file. ""
	// is no value, as a nil map.
	Value func(file string, a hashing.Algo) string
}

// value is file's value in a ("": none).
func (t *Tree) value(file string, a hashing.Algo) string {
	if t.Value != nil {
		return t.Value(file, a)
	}
	return t.Files[file][a]
}

// DirHashes computes the content and structure hash of every folder of t
// in each of algos, as the specification's DirectoryHashType and Appendix G
// define them and the reference tool computes them: a folder's content
// hash hashes the sorted list of its children's hashes (files' values,
// folders' content hashes), decoded to bytes; its structure hash hashes the
// sorted list of hash(name bytes + child hash bytes), where a sub-folder's
// child hash is its structure hash. A folder gets no hash of an algorithm
// for which some file below it has no value. The result maps folder paths
// ("." for the root) to their hashes in the order of algos.
func DirHashes(t Tree, algos []hashing.Algo) (map[string][]DirHash, error) {
	children := map[string][]string{}
	isDir := map[string]bool{".": true}
	for _, d := range t.Dirs {
		if d != "." {
			isDir[d] = true
		}
	}
	addChild := func(p string) {
		parent := path.Dir(p)
		children[parent] = append(children[parent], p)
	}
	for d := range isDir {
		if d != "." {
			addChild(d)
		}
	}
	for f := range t.Files {
		addChild(f)
	}
	for p := range children {
		if !isDir[p] {
			return nil, fmt.Errorf("ascmhl: %q holds entries but is not listed as a folder", p)
		}
	}
	dirs := make([]string, 0, len(isDir))
	for d := range isDir {
		dirs = append(dirs, d)
	}
	// Deepest first, so children are done before their parent.
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := depth(dirs[i]), depth(dirs[j])
		if di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	type pair struct{ content, structure string }
	done := map[string]map[hashing.Algo]pair{}
	out := map[string][]DirHash{}
	for _, d := range dirs {
		done[d] = map[hashing.Algo]pair{}
		for _, a := range algos {
			var contents, structures []string
			ok := true
			for _, c := range children[d] {
				name := path.Base(c)
				var content, childStruct string
				if isDir[c] {
					p, has := done[c][a]
					if !has {
						ok = false
						break
					}
					content, childStruct = p.content, p.structure
				} else {
					v := t.value(c, a)
					if v == "" {
						ok = false
						break
					}
					content, childStruct = v, v
				}
				b, err := decodeValue(a, childStruct)
				if err != nil {
					return nil, fmt.Errorf("ascmhl: %q: %w", c, err)
				}
				contents = append(contents, content)
				structures = append(structures, hashBytes(a, append([]byte(name), b...)))
			}
			if !ok {
				continue
			}
			c, err := hashOfHashes(a, contents)
			if err != nil {
				return nil, err
			}
			s, err := hashOfHashes(a, structures)
			if err != nil {
				return nil, err
			}
			done[d][a] = pair{c, s}
			out[d] = append(out[d], DirHash{Algo: a, Content: c, Structure: s})
		}
	}
	return out, nil
}

func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}

func hashBytes(a hashing.Algo, b []byte) string {
	h := a.New()
	h.Write(b)
	return hashing.Encode(a, h.Sum(nil))
}

// hashOfHashes is Appendix G: sort the values, decode each to bytes, hash
// the concatenation.
func hashOfHashes(a hashing.Algo, values []string) (string, error) {
	sorted := append([]string(nil), values...)
	sort.Strings(sorted)
	h := a.New()
	for _, v := range sorted {
		b, err := decodeValue(a, v)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hashing.Encode(a, h.Sum(nil)), nil
}

// decodeValue turns a text hash value back into its bytes.
func decodeValue(a hashing.Algo, v string) ([]byte, error) {
	if a == hashing.C4 {
		return hashing.DecodeC4(v)
	}
	b, err := hex.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("invalid %s value %q", a, v)
	}
	return b, nil
}

// DirHasher computes the folder hashes DirHashes computes, for a tree
// walked depth first: Enter a folder, give its files (File) and its
// sub-folders (Enter ... Leave) in any order, Leave it. It holds only the
// folders open on the way down, each with its children's hashes as bytes
// (per algorithm two digests a child: 16 bytes for xxh64), never the
// tree: bounded by the widest folder.
type DirHasher struct {
	algos []hashing.Algo
	sizes []int
	open  []*dirFrame
}

// dirFrame is a folder being hashed.
type dirFrame struct {
	path    string
	missing []bool   // per algorithm: a child has no value
	content [][]byte // per algorithm: the children's content digests, packed
	struc   [][]byte // per algorithm: digest(name + child's structure digest), packed
}

// NewDirHasher hashes folders in each of algos.
func NewDirHasher(algos []hashing.Algo) *DirHasher {
	d := &DirHasher{algos: algos}
	for _, a := range algos {
		d.sizes = append(d.sizes, a.New().Size())
	}
	return d
}

// Depth is the number of folders open.
func (d *DirHasher) Depth() int { return len(d.open) }

// Enter opens folder p ("." is the root) inside the folder open last.
func (d *DirHasher) Enter(p string) {
	n := len(d.algos)
	d.open = append(d.open, &dirFrame{path: p, missing: make([]bool, n), content: make([][]byte, n), struc: make([][]byte, n)})
}

// File adds file p of the folder open last, with its value in each
// algorithm ("": none; its folders then get no hash of that algorithm).
func (d *DirHasher) File(p string, value func(hashing.Algo) string) error {
	top := d.open[len(d.open)-1]
	name := path.Base(p)
	for i, a := range d.algos {
		if top.missing[i] {
			continue
		}
		v := value(a)
		if v == "" {
			top.missing[i] = true
			continue
		}
		b, err := decodeValue(a, v)
		if err == nil && len(b) != d.sizes[i] {
			err = fmt.Errorf("invalid %s value %q", a, v)
		}
		if err != nil {
			return fmt.Errorf("ascmhl: %q: %w", p, err)
		}
		d.add(top, i, name, b, b)
	}
	return nil
}

// add records a child's content and structure digests in algorithm i.
func (d *DirHasher) add(f *dirFrame, i int, name string, content, struc []byte) {
	h := d.algos[i].New()
	h.Write([]byte(name))
	h.Write(struc)
	f.content[i] = append(f.content[i], content...)
	f.struc[i] = h.Sum(f.struc[i])
}

// Leave closes the folder open last and returns its path and hashes, in
// the order of the algorithms (none of an algorithm some file below it
// has no value in); they go into the folder holding it.
func (d *DirHasher) Leave() (string, []DirHash) {
	f := d.open[len(d.open)-1]
	d.open = d.open[:len(d.open)-1]
	var parent *dirFrame
	if len(d.open) > 0 {
		parent = d.open[len(d.open)-1]
	}
	var out []DirHash
	for i, a := range d.algos {
		if f.missing[i] {
			if parent != nil {
				parent.missing[i] = true
			}
			continue
		}
		c := digestOfPacked(a, f.content[i], d.sizes[i])
		s := digestOfPacked(a, f.struc[i], d.sizes[i])
		out = append(out, DirHash{Algo: a, Content: hashing.Encode(a, c), Structure: hashing.Encode(a, s)})
		if parent != nil && !parent.missing[i] {
			d.add(parent, i, path.Base(f.path), c, s)
		}
	}
	return f.path, out
}

// digestOfPacked is hashOfHashes over digests of size bytes packed in b:
// sorted (the text forms sort as their bytes do: fixed-width lowercase
// hex, fixed-width base58 for c4), concatenated, hashed.
func digestOfPacked(a hashing.Algo, b []byte, size int) []byte {
	sort.Sort(packed{b: b, size: size, tmp: make([]byte, size)})
	h := a.New()
	h.Write(b)
	return h.Sum(nil)
}

// packed sorts fixed-size records in place.
type packed struct {
	b    []byte
	size int
	tmp  []byte
}

func (p packed) Len() int { return len(p.b) / p.size }
func (p packed) Less(i, j int) bool {
	return string(p.b[i*p.size:(i+1)*p.size]) < string(p.b[j*p.size:(j+1)*p.size])
}
func (p packed) Swap(i, j int) {
	x, y := p.b[i*p.size:(i+1)*p.size], p.b[j*p.size:(j+1)*p.size]
	copy(p.tmp, x)
	copy(x, y)
	copy(y, p.tmp)
}
