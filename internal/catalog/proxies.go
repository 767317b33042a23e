package catalog

import (
	"database/sql"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// Proxy is a row of proxies (schema versions 17 and 19): one editorial
// proxy of a clip on one destination, or a clip whose proxy failed.
type Proxy struct {
	ID, JobID, CardID int64
	Clip              string
	// Source is the verified copy ffmpeg read (a path; for a dit array
	// the array's blade and the card-relative path).
	Source string
	// Dest is the destination the proxy is on (a folder, a dit array's
	// blade, or a cloud destination rclone:REMOTE:PATH); Path the proxy
	// relative to it ("" when it failed).
	Dest, Path string
	Preset     string // prores-proxy, h264, dnxhr-lb, dnxhr-lb-mov; ",burnin"
	TCStart    string
	Sums       hashing.Sums
	Size       int64
	State      string // ProxyMade, ProxyFailed, ProxyCancelled, ProxySkipped
	Error      string // ffmpeg's error line
	MadeAt     time.Time
	// VerifyAlgos says how the proxy's copy on Dest was verified, as
	// copies.verify_algos does: "s3-etag:md5" (the storage's own MD5),
	// "readback:ALGOS" (read back from the cloud and hashed), ALGOS (a
	// copy to a second folder read back); "" for the proxy as ffmpeg
	// wrote it.
	VerifyAlgos string
}

// Proxy states.
const (
	ProxyMade      = "made"
	ProxyFailed    = "failed"
	ProxyCancelled = "cancelled"
	// ProxySkipped: no proxy, and none was expected: a format ffmpeg does
	// not read (camera raw), a frame sequence.
	ProxySkipped = "skipped"
)

var proxyAlgos = []hashing.Algo{hashing.MD5, hashing.SHA1, hashing.XXH64, hashing.XXH3, hashing.XXH128, hashing.C4, hashing.BLAKE3}

const proxyCols = `id,job_id,card_id,clip,source,dest,path,preset,tc_start,md5,sha1,xxh64,xxh3,xxh128,c4,blake3,size,state,error,made_at,verify_algos`

// AddProxy records a proxy and waits until it is committed.
func (c *Catalog) AddProxy(p *Proxy) error {
	c.Submit(proxyInsert, proxyArgs(p.JobID, p.CardID, p)...)
	return c.Flush()
}

const proxyInsert = `INSERT INTO proxies (job_id,card_id,clip,source,dest,path,preset,tc_start,md5,sha1,xxh64,xxh3,xxh128,c4,blake3,size,state,error,made_at,verify_algos)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// proxyArgs are proxyInsert's arguments for p, as a row of job jobID
// and card cardID.
func proxyArgs(jobID, cardID int64, p *Proxy) []any {
	args := []any{jobID, cardID, p.Clip, p.Source, p.Dest, p.Path, p.Preset, p.TCStart}
	for _, a := range proxyAlgos {
		args = append(args, nullStr(p.Sums.Get(a)))
	}
	return append(args, p.Size, p.State, p.Error, Time(p.MadeAt), p.VerifyAlgos)
}

// Proxies lists a job's proxies, by card and in the order they were
// recorded.
func (c *Catalog) Proxies(jobID int64) ([]Proxy, error) {
	var out []Proxy
	err := c.EachProxy(jobID, func(p Proxy) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// EachProxy calls f with each of a job's proxies as it is read, by card
// and in the order they were recorded (the proxies sheet streams them);
// an error of f stops it and is returned.
func (c *Catalog) EachProxy(jobID int64, f func(Proxy) error) error {
	return c.eachProxy(`job_id=?`, []any{jobID}, f)
}

// EachCardProxy is EachProxy of the proxies of card cardID of job jobID
// (read by the index proxies_job).
func (c *Catalog) EachCardProxy(jobID, cardID int64, f func(Proxy) error) error {
	return c.eachProxy(`job_id=? AND card_id=?`, []any{jobID, cardID}, f)
}

func (c *Catalog) eachProxy(where string, args []any, f func(Proxy) error) error {
	if err := c.Flush(); err != nil {
		return err
	}
	rows, err := c.db.Query(`SELECT `+proxyCols+` FROM proxies WHERE `+where+` ORDER BY card_id, id`, args...)
	if err != nil {
		return c.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p Proxy
		var h [7]sql.NullString
		var at string
		if err := rows.Scan(&p.ID, &p.JobID, &p.CardID, &p.Clip, &p.Source, &p.Dest, &p.Path, &p.Preset, &p.TCStart,
			&h[0], &h[1], &h[2], &h[3], &h[4], &h[5], &h[6], &p.Size, &p.State, &p.Error, &at, &p.VerifyAlgos); err != nil {
			return c.wrap(err)
		}
		for i, a := range proxyAlgos {
			p.Sums.Set(a, h[i].String)
		}
		p.MadeAt = ParseTime(sql.NullString{String: at, Valid: at != ""})
		if err := f(p); err != nil {
			return err
		}
	}
	return c.wrap(rows.Err())
}
