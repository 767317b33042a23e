package jobreport

import (
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// VerifiedBy counts the verified copies on a destination (of a card, or
// of every card) by how they were verified, from each copy's
// copies.verify_algos: by the storage's own MD5 of the stored object
// (an S3 single-part object's ETag: "s3-etag:md5", or
// "history:s3-etag:md5" for the chain of the card's ASC MHL history),
// nothing read back; or read back and hashed ("readback:ALGOS" from a
// cloud remote, ALGOS from a folder or a dit array). Bytes are the
// copies' sizes.
type VerifiedBy struct {
	StorageMD5      int   `json:"storage_md5"`
	StorageMD5Bytes int64 `json:"storage_md5_bytes"`
	ReadBack        int   `json:"read_back"`
	ReadBackBytes   int64 `json:"read_back_bytes"`
}

// byStorage reports whether verify_algos algos says the storage's own
// checksum verified the copy (nothing was read back).
func byStorage(algos string) bool {
	return strings.HasPrefix(strings.TrimPrefix(algos, offload.RemoteByHistory), offload.RemoteByStorage)
}

// add counts a verified copy of size bytes verified as algos says.
func (v *VerifiedBy) add(algos string, size int64) {
	if byStorage(algos) {
		v.StorageMD5++
		v.StorageMD5Bytes += size
		return
	}
	v.ReadBack++
	v.ReadBackBytes += size
}

func (v *VerifiedBy) sum(o VerifiedBy) {
	v.StorageMD5 += o.StorageMD5
	v.StorageMD5Bytes += o.StorageMD5Bytes
	v.ReadBack += o.ReadBack
	v.ReadBackBytes += o.ReadBackBytes
}

// The reasons a read-back figure (bytes over the time spent reading
// back) is not given.
const (
	notReadBackStorage = "not read back: verified by the storage's own MD5 (S3 ETag)"
	notReadBackMixed   = "not measured: part of the copies verified by the storage's own MD5 (S3 ETag), not read back"
)

// notReadBack says why a read-back rate of these copies does not apply
// ("" when it does: no copy was verified by the storage's checksum).
// The per-second verify samples count a copy verified by the storage's
// MD5 as verified when it is, in no time: a rate from them would be made
// up, so none is given.
func (v VerifiedBy) notReadBack() string {
	switch {
	case v.StorageMD5 == 0:
		return ""
	case v.ReadBack == 0:
		return notReadBackStorage
	}
	return notReadBackMixed
}

// Text says how the copies were verified: "verified by the storage's
// own MD5 (S3 ETag): 7 files; read back: 0 files", or "read back: 7
// files" where the storage's checksum verified none.
func (v VerifiedBy) Text() string {
	rb := "read back: " + plural(v.ReadBack, "file", "files")
	if v.StorageMD5 == 0 {
		return rb
	}
	return fmt.Sprintf("verified by the storage's own MD5 (S3 ETag): %s; %s", plural(v.StorageMD5, "file", "files"), rb)
}

// nothingCopied: see units.NothingCopied.
const nothingCopied = units.NothingCopied

// naCell is a table cell for a figure that does not apply: a dash and
// the word why.
const naCell = "— (not read back)"

// readBackCell is a destination's read-back rate v in a table cell, or
// naCell where no rate applies.
func readBackCell(by VerifiedBy, v float64, num func(float64) string) string {
	if by.notReadBack() != "" {
		return naCell
	}
	return num(v)
}

// noReadBackFigures takes out of card c the read-back figures that do not
// apply: a destination's read-back rate where the storage's MD5 verified
// copies there; the card's verify bytes, time, TB/hour, rates and chart
// line where the storage's MD5 verified any of its first-run copies (its
// bytes read back are then the read-back copies' sizes).
func noReadBackFigures(c *Card) {
	var first VerifiedBy
	for i := range c.Destinations {
		d := &c.Destinations[i]
		if d.VerifiedBy.notReadBack() != "" {
			d.ReadBackRate = Rate{}
		}
		if d.Run != 2 {
			first.sum(d.VerifiedBy)
		}
	}
	why := first.notReadBack()
	if why == "" {
		return
	}
	c.VerifyNotApplicable = why
	c.BytesVerified = first.ReadBackBytes
	c.VerifySeconds, c.VerifyTBPerHour, c.VerifyRate = 0, 0, Rate{}
	kept := c.series[:0]
	for _, p := range c.series {
		if p.phase != "verify" {
			kept = append(kept, p)
		}
	}
	c.series = kept
}

// noJobReadBackFigures does the same for the job's totals once its cards
// and destinations are counted.
func (r *Report) noJobReadBackFigures() {
	for i := range r.Destinations {
		if r.Destinations[i].VerifiedBy.notReadBack() != "" {
			r.Destinations[i].ReadBackRate = Rate{}
		}
	}
	t := &r.Totals
	why := ""
	var rb int64
	for i := range r.Cards {
		c := &r.Cards[i]
		rb += c.BytesVerified
		if c.VerifyNotApplicable != "" && why != notReadBackMixed {
			why = c.VerifyNotApplicable
		}
	}
	if why == "" {
		return
	}
	if rb > 0 {
		why = notReadBackMixed
	}
	t.VerifyNotApplicable, t.BytesVerified, t.VerifyTBPerHour = why, rb, 0
}

// verifiedByStorage: some copy of the job was verified by the storage's
// own MD5 (then the report says how each destination's were).
func (r *Report) verifiedByStorage() bool {
	for _, d := range r.Destinations {
		if d.VerifiedBy.StorageMD5 > 0 {
			return true
		}
	}
	return false
}

// hasCloud: the job has a cloud destination (the report then says how
// each destination's copies were verified).
func (r *Report) hasCloud() bool {
	for _, d := range r.Destinations {
		if cloud.IsDest(d.Path) {
			return true
		}
	}
	return false
}

// hasFolder: the job has a destination that is not a cloud one (its
// reports are written there at the end of the job).
func (r *Report) hasFolder() bool {
	for _, d := range r.Destinations {
		if !cloud.IsDest(d.Path) {
			return true
		}
	}
	return false
}

// verifyTBH is a verify TB/hour in a table cell: naCell where it does not
// apply (why set).
func verifyTBH(v float64, why string) string {
	if why != "" {
		return naCell
	}
	return tbhNum(v)
}

// readBackSub is what the job's verify figure reads under it: the bytes
// read back, and why no rate is given where it is not.
func readBackSub(t *Totals) string {
	s := units.FormatBytes(t.BytesVerified) + " read back"
	switch t.VerifyNotApplicable {
	case notReadBackStorage:
		return "not read back: the storage's MD5 (S3 ETag)"
	case notReadBackMixed:
		return s + "; the rest: S3 ETag (storage MD5)"
	}
	return s
}

// storageNote explains the dashes of the read-back figures of a job
// with copies verified by the storage's own MD5 ("" without).
func (r *Report) storageNote() string {
	if !r.verifiedByStorage() {
		return ""
	}
	return "A cloud copy verified by the storage's own MD5 (S3 ETag: computed by the storage from the bytes it received, " +
		"compared with the MD5 of dit's read of the card) is not read back: no read-back bytes, time or rate is given " +
		"for it (\"—\"). Objects the storage gives no MD5 for are read back and hashed."
}

// verifyDash is a verify TB/hour in a narrow PDF cell: "—" where it does
// not apply (the page says why).
func verifyDash(v float64, why string) string {
	if why != "" {
		return "—"
	}
	return tbhNum(v)
}

// rbDash is a read-back rate in a narrow PDF cell: "—" where none applies.
func rbDash(by VerifiedBy, v float64, num func(float64) string) string {
	if by.notReadBack() != "" {
		return "—"
	}
	return num(v)
}

// verifyRow is the PDF card page's verify row: bytes read back, time,
// TB/hour and rates, or dashes where they do not apply.
func verifyRow(c *Card, rateCells func(Rate) []string) []string {
	if c.VerifyNotApplicable != "" {
		return []string{"Verify (reading the copies back)", units.FormatBytes(c.BytesVerified), "—", "—", "—", "—", "—", "—", "0"}
	}
	return append([]string{"Verify (reading the copies back)", units.FormatBytes(c.BytesVerified), hmsOr(c.VerifySeconds), tbhNum(c.VerifyTBPerHour)}, rateCells(c.VerifyRate)...)
}
