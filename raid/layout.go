package raid

// Layout is the geometry of one file on the array: the mapping formulas of
// the package doc. It is pure arithmetic.
type Layout struct {
	K     int   // data blades
	SU    int64 // stripe unit
	Start int   // rotation: position j lives on data role (Start+j) mod K
	Size  int64 // logical file size
}

// Width is the data bytes of one full stripe.
func (l Layout) Width() int64 { return int64(l.K) * l.SU }

// Stripes is the number of stripes (0 for an empty file).
func (l Layout) Stripes() int64 {
	if l.Size == 0 {
		return 0
	}
	return (l.Size + l.Width() - 1) / l.Width()
}

// ChunkLen is L_j, the length of the data chunk of position j.
func (l Layout) ChunkLen(j int) int64 {
	w := l.Width()
	rem := l.Size % w
	extra := rem - int64(j)*l.SU
	if extra < 0 {
		extra = 0
	}
	if extra > l.SU {
		extra = l.SU
	}
	return (l.Size/w)*l.SU + extra
}

// ParityLen is the length of the parity chunk: L_0.
func (l Layout) ParityLen() int64 { return l.ChunkLen(0) }

// Role is the data blade role of position j.
func (l Layout) Role(j int) int { return (l.Start + j) % l.K }

// Position is the data position held by data role r.
func (l Layout) Position(r int) int { return ((r-l.Start)%l.K + l.K) % l.K }

// UnitLen is the length of unit (s, j): su, less in the last stripe, 0 if
// the unit does not exist. The parity unit of stripe s has UnitLen(s, 0).
func (l Layout) UnitLen(s int64, j int) int64 {
	n := l.ChunkLen(j) - s*l.SU
	if n < 0 {
		return 0
	}
	if n > l.SU {
		return l.SU
	}
	return n
}

// Locate maps a logical offset to its stripe, position and offset inside
// the unit; the chunk offset is s*SU + b.
func (l Layout) Locate(off int64) (s int64, j int, b int64) {
	w := l.Width()
	s = off / w
	j = int((off % w) / l.SU)
	b = off % l.SU
	return
}

// UnitStart is the logical offset of unit (s, j).
func (l Layout) UnitStart(s int64, j int) int64 { return s*l.Width() + int64(j)*l.SU }
