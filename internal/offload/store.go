package offload

import (
	"context"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
)

// Remote destinations (rclone:REMOTE:PATH, docs/cloud.md) are stores of
// whole objects ([dest.Store]; the remote kind, internal/offload/dest/
// remote, is the one implementation): they are uploaded from a verified
// local copy, the job's last hop. A job with a folder or array
// destination (-d) and a remote one takes the remote to its cascade's
// second run (hop 2), which reads the first copy; --then rclone:... is
// the same. The card is free once its first copy is verified, and safe
// to format only once the remote copy is verified too. A job whose only
// destinations are remote ones streams each card: every file is read
// once, hashed and sent as it is read (storestream.go), and the
// storage's MD5 of what it stored must equal the MD5 of that read.
//
// A remote copy is verified when the storage's own MD5 of the stored
// object ([dest.Object.StorageMD5]) equals the MD5 of the card's read,
// or else when the object read back from the remote hashes as the card
// did. The copy row's verify_algos says which: RemoteByStorage or
// RemoteByReadBack, with the algorithms compared.

// Verification methods of a remote copy, as the catalog's verify_algos
// holds them (followed by the algorithms compared: "s3-etag:md5").
const (
	RemoteByStorage  = dest.ByStorage
	RemoteByReadBack = dest.ByReadBack
)

// isStore reports whether d is a remote destination (a [dest.Store]).
func (d *destination) isStore() bool { return dest.IsRemote(d.root) }

// storeRun: every destination of c is a store (their card run is
// storerun.go's).
func (c *cardRun) storeRun() bool {
	if len(c.dests) == 0 {
		return false
	}
	for _, d := range c.dests {
		if !d.isStore() {
			return false
		}
	}
	return true
}

// openStores opens the card's stores (nil for a folder or an array):
// each keeps the card's listings there until the run writes there.
func (c *cardRun) openStores() {
	c.stores = make([]dest.Store, len(c.dests))
	for di, d := range c.dests {
		if d.isStore() {
			// Parsed when the job was made or resumed (prepare.go).
			c.stores[di], _ = dest.OpenStore(d.root, c.j.opts.Remote)
			if w := c.j.opts.WrapStore; w != nil && c.stores[di] != nil {
				c.stores[di] = w(c.stores[di])
			}
		}
	}
}

// splitStores refuses what dit cannot do with the remote destinations
// (CheckRemoteDests), moves those of o.Dests to o.Then when they are
// uploaded from the first copy (RemoteRuns), and adds MD5 to the hashes
// (the storage's checksum is compared with the card's MD5).
func splitStores(o *Options) error {
	if err := CheckRemoteDests(o.Dests, o.Then, o.Verify); err != nil {
		return err
	}
	if err := o.settleRemote(); err != nil {
		return err
	}
	if !slices.ContainsFunc(append(append([]string(nil), o.Dests...), o.Then...), dest.IsRemote) {
		return nil
	}
	// Uploaded from the verified local copy, in a second run; or, with
	// only remote destinations, each card's files are streamed from the
	// card's one read (streamStore).
	o.Dests, o.Then, _ = RemoteRuns(o.Dests, o.Then)
	if !slices.Contains(o.Hashes, hashing.MD5) && len(o.Hashes) > 0 {
		o.Hashes = append(append([]hashing.Algo(nil), o.Hashes...), hashing.MD5)
	}
	return nil
}

// checkStores reads every remote destination of a job once, before it
// starts or is resumed: rclone installed, its configuration file there,
// the remote configured and its folder readable (the remote kind's
// Check, whose words dit-gui shows too); else the job is refused before
// anything is recorded.
func checkStores(ctx context.Context, o Options) error {
	return dest.CheckRemotes(ctx, o.Remote, append(append([]string(nil), o.Dests...), o.Then...))
}

// storeMethod is the verify_algos of a remote copy verified by method
// with algos.
func storeMethod(method string, algos []hashing.Algo) string {
	return method + hashing.Names(algos)
}

// RemoteVerifiedBy says in words how a copy was verified, from its
// verify_algos (dest.VerifiedBy).
func RemoteVerifiedBy(verifyAlgos string) string { return dest.VerifiedBy(verifyAlgos) }

// storePath is a copy's place on a remote destination, for messages.
func storePath(d *destination, rel string) string {
	return strings.TrimSuffix(d.root, "/") + "/" + rel
}
