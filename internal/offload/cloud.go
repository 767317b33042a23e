package offload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/hashing"
)

// Cloud destinations (rclone:REMOTE:PATH, internal/cloud, docs/cloud.md)
// are uploaded from a verified local copy: they are the job's last hop.
// A job with a folder or array destination (-d) and a cloud one takes
// the cloud one to its cascade's second run (hop 2), which reads the
// first copy; --then rclone:... is the same. The card is free once its
// first copy is verified, and safe to format only once the cloud copy is
// verified too. A job whose only destinations are cloud ones streams
// each card: every file is read once, hashed and sent as it is read
// (streamcloud.go), and the storage's MD5 of what it stored must equal
// the MD5 of that read.
//
// A cloud copy is verified when the storage's own MD5 of the stored
// object (an S3 single-part object's ETag, computed by the server from
// the bytes it received) equals the MD5 of the card's read, or else when
// the object read back from the remote hashes as the card did. The copy
// row's verify_algos says which: CloudByServer or CloudByReadBack, with
// the algorithms compared.

// Verification methods of a cloud copy, as the catalog's verify_algos
// holds them (followed by the algorithms compared: "s3-etag:md5").
const (
	CloudByServer   = "s3-etag:"
	CloudByReadBack = "readback:"
)

// isCloud reports whether d is a cloud destination.
func (d *destination) isCloud() bool { return cloud.IsDest(d.root) }

// cloudRun: every destination of c is a cloud one.
func (c *cardRun) cloudRun() bool {
	if len(c.dests) == 0 {
		return false
	}
	for _, d := range c.dests {
		if !d.isCloud() {
			return false
		}
	}
	return true
}

// splitCloud refuses what dit cannot do with the cloud destinations
// (CheckCloudDests), moves those of o.Dests to o.Then when they are
// uploaded from the first copy (CloudRuns), and adds MD5 to the hashes
// (the storage's checksum is compared with the card's MD5).
func splitCloud(o *Options) error {
	if err := CheckCloudDests(o.Dests, o.Then, o.Verify); err != nil {
		return err
	}
	if err := o.settleCloud(); err != nil {
		return err
	}
	if !slices.ContainsFunc(append(append([]string(nil), o.Dests...), o.Then...), cloud.IsDest) {
		return nil
	}
	// Uploaded from the verified local copy, in a second run; or, with
	// only cloud destinations, each card's files are streamed from the
	// card's one read (streamCloud).
	o.Dests, o.Then, _ = CloudRuns(o.Dests, o.Then)
	if !slices.Contains(o.Hashes, hashing.MD5) && len(o.Hashes) > 0 {
		o.Hashes = append(append([]hashing.Algo(nil), o.Hashes...), hashing.MD5)
	}
	return nil
}

// cloudDests are the cloud destinations among ds, parsed.
func cloudDest(d *destination) cloud.Dest {
	cd, _ := cloud.Parse(d.root)
	return cd
}

// rclone is the job's rclone (Options.Rclone, or rclone on PATH with the
// user's own configuration).
func (j *Job) rclone() *cloud.Rclone {
	if j.opts.Rclone != nil {
		return j.opts.Rclone
	}
	return &cloud.Rclone{}
}

// checkClouds reads every cloud destination of a job once, before it
// starts or is resumed: rclone installed, its configuration file there,
// the remote configured and its folder readable (cloud.CheckDest, whose
// words dit-gui shows too); else the job is refused before anything is
// recorded.
func checkClouds(ctx context.Context, o Options) error {
	return checkCloudDests(ctx, o.Rclone, append(append([]string(nil), o.Dests...), o.Then...))
}

// checkCloudDests checks each cloud destination among dests with r (nil:
// rclone on PATH, the user's configuration), each remote's folder once.
func checkCloudDests(ctx context.Context, r *cloud.Rclone, dests []string) error {
	if r == nil {
		r = &cloud.Rclone{}
	}
	seen := map[string]bool{}
	for _, d := range dests {
		if !cloud.IsDest(d) || seen[d] {
			continue
		}
		seen[d] = true
		if err := r.CheckDest(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// cloudMethod is the verify_algos of a cloud copy verified by method
// with algos.
func cloudMethod(method string, algos []hashing.Algo) string {
	return method + hashing.Names(algos)
}

// CloudVerifiedBy says in words how a copy was verified, from its
// verify_algos: "the storage's MD5 (S3 ETag)", "read back from the
// cloud: xxh64", or the algorithms of a local read-back.
func CloudVerifiedBy(verifyAlgos string) string {
	switch {
	case strings.HasPrefix(verifyAlgos, CloudByHistory):
		return CloudVerifiedBy(strings.TrimPrefix(verifyAlgos, CloudByHistory)) + ", as the chain of the card's ASC MHL history extended by dit"

	case strings.HasPrefix(verifyAlgos, CloudByServer):
		return "the storage's own " + strings.TrimPrefix(verifyAlgos, CloudByServer) + " (S3 ETag)"
	case strings.HasPrefix(verifyAlgos, CloudByReadBack):
		return "read back from the cloud: " + strings.TrimPrefix(verifyAlgos, CloudByReadBack)
	}
	return verifyAlgos
}

// cloudPath is a copy's place on a cloud destination, for messages.
func cloudPath(d *destination, rel string) string {
	return fmt.Sprintf("%s/%s", strings.TrimSuffix(d.root, "/"), rel)
}

// cloudLists are a card's listings of its folder on each cloud
// destination, taken once and reused until the run writes there: the
// plan's listing is the upload's "what is there already", the listing
// after an upload is the verification's and the seal's. Every rclone
// listing is a process and a walk of the folder on the storage.
type cloudLists struct {
	mu   sync.Mutex
	held map[int]map[string]cloud.Object // by destination index
}

// listCloud is what destination di holds in the card's folder: the
// listing taken since the run last wrote there, or a new one with r
// (nil: the job's rclone). The map is shared: read it, never change it.
func (c *cardRun) listCloud(ctx context.Context, di int, r *cloud.Rclone) (map[string]cloud.Object, error) {
	c.lists.mu.Lock()
	held, ok := c.lists.held[di]
	c.lists.mu.Unlock()
	if ok {
		return held, nil
	}
	if r == nil {
		r = c.j.rclone()
	}
	held, err := r.List(ctx, cloudDest(c.dests[di]), c.out)
	if err != nil {
		return nil, err
	}
	c.lists.mu.Lock()
	if c.lists.held == nil {
		c.lists.held = map[int]map[string]cloud.Object{}
	}
	c.lists.held[di] = held
	c.lists.mu.Unlock()
	return held, nil
}

// wroteCloud forgets destination di's listing: the run is writing there.
func (c *cardRun) wroteCloud(di int) {
	c.lists.mu.Lock()
	delete(c.lists.held, di)
	c.lists.mu.Unlock()
}
