package catalog

import (
	"crypto/rand"
	"fmt"
	"os"
)

// defaultStation is the station a catalog records when none is set: the
// host name ("" if unknown).
func defaultStation() string {
	h, _ := os.Hostname()
	return h
}

// SetStation sets the name of the cart this process runs on (dit
// --station), recorded on the jobs it creates. "" keeps the host name.
func (c *Catalog) SetStation(name string) {
	if name != "" {
		c.station = name
	}
}

// Station is the name of the cart the catalog records on new jobs.
func (c *Catalog) Station() string { return c.station }

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
