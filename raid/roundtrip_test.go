package raid

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fault test 1: edge sizes round-trip, every k, both stripe units, both
// levels, every start; then read back with each blade removed.
func TestEdgeSizesRoundTrip(t *testing.T) {
	type cfg struct {
		level Level
		k     int
		su    int64
	}
	var cfgs []cfg
	for k := 2; k <= 8; k++ {
		cfgs = append(cfgs, cfg{RAID0, k, 64 << 10}, cfg{RAID4, k, 64 << 10})
	}
	for k := 2; k <= 4; k++ {
		cfgs = append(cfgs, cfg{RAID0, k, 1 << 20}, cfg{RAID4, k, 1 << 20})
	}
	if testing.Short() {
		cfgs = cfgs[:4]
	}
	for _, c := range cfgs {
		t.Run(fmt.Sprintf("%s-k%d-su%d", c.level, c.k, c.su), func(t *testing.T) {
			n := c.k
			if c.level == RAID4 {
				n++
			}
			mb, dirs, a := memArray(t, c.level, n, c.su)
			su, w := c.su, int64(c.k)*c.su
			rng := rand.New(rand.NewPCG(uint64(c.k), uint64(c.su)))
			sizes := []int64{0, 1, su - 1, su, su + 1, w - 1, w, w + 1, 3*w + 7, rng.Int64N(4 * w), rng.Int64N(su)}
			files := map[string][]byte{}
			i := 0
			for _, size := range sizes {
				// Every start: k files of each size (start is round-robin).
				for st := 0; st < c.k; st++ {
					if size > 2*w && st > 0 {
						break // big sizes: one start is enough to keep the test quick
					}
					p := fmt.Sprintf("clips/f%03d_%d.mov", i, size)
					data := randBytes(size, uint64(i+1))
					m := putFile(t, a, p, data)
					checkLayout(t, a, m, data)
					files[p] = data
					i++
				}
			}
			for p, data := range files {
				got, err := getFile(a, p)
				require.NoError(t, err)
				require.True(t, bytes.Equal(data, got), p)
			}
			require.NoError(t, a.Close())
			// Each single blade removed.
			for gone := range dirs {
				mb.hidden = map[string]bool{dirs[gone]: true}
				var rest []string
				for i, d := range dirs {
					if i != gone {
						rest = append(rest, d)
					}
				}
				ra, err := Open(rest, OpenOptions{FS: mb.fs})
				require.NoError(t, err)
				require.Equal(t, []int{gone}, ra.Missing())
				for p, data := range files {
					got, err := getFile(ra, p)
					if c.level == RAID4 {
						require.NoError(t, err, "%s with blade %d removed", p, gone)
						require.True(t, bytes.Equal(data, got), "%s with blade %d removed", p, gone)
						continue
					}
					m, _ := ra.Lookup(p)
					onGone := false
					for j := 0; j < c.k; j++ {
						if m.layout().ChunkLen(j) > 0 && m.layout().Role(j) == gone {
							onGone = true
						}
					}
					if onGone {
						require.ErrorIs(t, err, ErrUnreadable, p)
					} else {
						require.NoError(t, err, "%s lives on surviving blades", p)
						require.True(t, bytes.Equal(data, got))
					}
				}
				ra.Close()
			}
			mb.hidden = map[string]bool{}
		})
	}
}

// Fault test 6: one blade missing at assemble (RAID 4), each in turn.
func TestOneBladeMissingRAID4(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 4, 64<<10)
	files := map[string][]byte{}
	for i, size := range []int64{0, 5, 200_000, 1_000_000} {
		p := fmt.Sprintf("A001/C%03d.mov", i)
		files[p] = randBytes(size, uint64(i+7))
		putFile(t, a, p, files[p])
	}
	require.NoError(t, a.Close())
	for gone := range dirs {
		mb.hidden = map[string]bool{dirs[gone]: true}
		before := a.sb.Events
		_, err := Open([]string{dirs[(gone+1)%4]}, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.ErrorContains(t, err, "degraded")
		require.ErrorContains(t, err, "--allow-degraded")
		ra, err := Open([]string{dirs[(gone+1)%4]}, OpenOptions{FS: mb.fs, ReadWrite: true, AllowDegraded: true})
		require.NoError(t, err)
		require.Equal(t, []int{gone}, ra.Missing())
		require.Greater(t, ra.sb.Events, before, "degrading bumps events")
		require.Equal(t, MemberMissing, ra.sb.Members[gone].State)
		for p, data := range files {
			got, err := getFile(ra, p)
			require.NoError(t, err)
			require.True(t, bytes.Equal(data, got))
		}
		require.NoError(t, ra.Close())
		mb.hidden = map[string]bool{}
		// Restore a clean full array for the next round (the hidden blade is stale now).
		ra, err = Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.NoError(t, err)
		require.Empty(t, ra.Missing())
		require.NoError(t, ra.Close())
		a = ra
	}
}

// Fault test 7: a second failure refuses writing; reads name what is lost.
func TestSecondFailure(t *testing.T) {
	for _, level := range []Level{RAID4, RAID0} {
		t.Run(string(level), func(t *testing.T) {
			n := 4
			mb, dirs, a := memArray(t, level, n, 64<<10)
			k := a.K()
			files := map[string][]byte{}
			for i := 0; i < 6; i++ {
				p := fmt.Sprintf("f%d", i)
				size := int64(1000 + i) // small: one blade each, rotated
				if i >= 3 {
					size = 700_000
				}
				files[p] = randBytes(size, uint64(i))
				putFile(t, a, p, files[p])
			}
			require.NoError(t, a.Close())
			gone := map[string]bool{dirs[1]: true}
			if level == RAID4 {
				gone[dirs[2]] = true
			}
			mb.hidden = gone
			snapshot := snapshotMem(mb, dirs)
			_, err := Open([]string{dirs[0]}, OpenOptions{FS: mb.fs, ReadWrite: true, AllowDegraded: true})
			require.ErrorContains(t, err, "cannot be written")
			ra, err := Open([]string{dirs[0]}, OpenOptions{FS: mb.fs})
			require.NoError(t, err)
			readable := 0
			for p, data := range files {
				got, err := getFile(ra, p)
				if err != nil {
					require.True(t, errors.Is(err, ErrUnreadable))
					require.Contains(t, err.Error(), p+": bytes ")
					require.Contains(t, err.Error(), "blade role")
					continue
				}
				readable++
				require.True(t, bytes.Equal(data, got))
			}
			require.Greater(t, readable, 0, "small files on surviving blades stay readable")
			require.Less(t, readable, len(files))
			ra.Close()
			require.Equal(t, snapshot, snapshotMem(mb, dirs), "nothing written to the survivors")
			_ = k
		})
	}
}

// snapshotMem renders every file of the visible blades.
func snapshotMem(mb *memBlades, dirs []string) map[string]string {
	out := map[string]string{}
	for _, d := range dirs {
		if mb.hidden[d] {
			continue
		}
		var walk func(n *memNode, p string)
		walk = func(n *memNode, p string) {
			for name, c := range n.cur {
				if c.dir {
					walk(c, p+"/"+name)
				} else {
					out[d+p+"/"+name] = string(c.data)
				}
			}
		}
		walk(mb.blades[d].top, "")
	}
	return out
}
