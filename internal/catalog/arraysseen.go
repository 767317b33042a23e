package catalog

import (
	"database/sql"
	"sort"
	"strings"
	"time"
)

// ArraySeen is one place the catalog saw a dit array at: a blade folder
// a job wrote to, or one a speed test measured the array through. The
// catalog records a destination by its folder only; the array's identity
// comes from what was recorded with it (no schema of its own):
//
//   - copies.identity of the destination's verified copies: a file on a
//     dit array has "array:UUID:..." (internal/fsys.Identity);
//   - costs.volume "array:UUID" (a finished job's destination,
//     internal/sched.LearnCosts), with its path and job_uuid, kept after
//     its job is deleted;
//   - speedtests.volume "array:UUID" (dit speedtest of an array), with
//     the blade folder it was run through.
//
// The array's label is recorded in none of them.
type ArraySeen struct {
	// UUID is the array's (its superblocks').
	UUID string
	// Path is the blade folder it was at.
	Path string
	// JobID is the job of this catalog that wrote to it there; 0 for a
	// speed test, or a job no longer in this catalog (its costs row
	// outlives it).
	JobID int64
	// T is when: the job's start (the card's end for a job no longer
	// here), the speed test's time.
	T time.Time
}

// firstCopies is how many of a destination's copies rows ArraysSeen
// looks at for an identity: a bound on what it reads of a destination
// none of whose copies has one (copies recorded before schema 23, a job
// that failed before its read-back), so the Arrays tab reads a few rows
// a destination, never a whole job's.
const firstCopies = "64"

// arraysSeenQuery reads every sighting: per local destination the first
// copy with an identity among its first firstCopies rows (an array's is
// "array:UUID:...", anything else is dropped in Go, where the UUID is
// cut out: no string function is the same on both backends), the costs
// rows of arrays with their job when it is still here, and the speed
// tests of arrays. Cloud destinations are left out (their copies have
// no identity).
const arraysSeenQuery = `
SELECT (SELECT x.identity FROM
          (SELECT c.identity FROM copies c
            WHERE c.card_id IN (SELECT k.id FROM cards k WHERE k.job_id = d.job_id) AND c.dest_id = d.id
            LIMIT ` + firstCopies + `) x
         WHERE x.identity <> '' LIMIT 1),
       d.path, j.id, j.started
  FROM destinations d JOIN jobs j ON j.id = d.job_id
 WHERE d.path NOT LIKE 'rclone:%'
UNION ALL
SELECT s.volume, s.path, COALESCE(j.id, 0), COALESCE(j.started, s.t)
  FROM costs s LEFT JOIN jobs j ON j.uuid = s.job_uuid AND j.uuid <> ''
 WHERE s.volume LIKE 'array:%'
UNION ALL
SELECT volume, path, 0, t FROM speedtests WHERE volume LIKE 'array:%'`

// ArraysSeen lists every place the catalog saw a dit array at, newest
// first (then the newest job first), once per array, folder and job
// (a speed test: once per array and folder, its newest).
func (c *Catalog) ArraysSeen() ([]ArraySeen, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(arraysSeenQuery)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var all []ArraySeen
	for rows.Next() {
		var id, t sql.NullString
		var s ArraySeen
		if err := rows.Scan(&id, &s.Path, &s.JobID, &t); err != nil {
			return nil, c.wrap(err)
		}
		if s.UUID = arrayUUIDOf(id.String); s.UUID == "" {
			continue
		}
		s.T = ParseTime(t)
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	sort.SliceStable(all, func(a, b int) bool {
		if !all[a].T.Equal(all[b].T) {
			return all[a].T.After(all[b].T)
		}
		return all[a].JobID > all[b].JobID
	})
	type key struct {
		uuid, path string
		job        int64
	}
	seen := map[key]bool{}
	var out []ArraySeen
	for _, s := range all {
		k := key{s.UUID, s.Path, s.JobID}
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// arrayUUIDOf is the array's UUID in a copy's identity
// ("array:UUID:FILEID:...") or a volume ("array:UUID"); "" for anything
// else.
func arrayUUIDOf(s string) string {
	rest, ok := strings.CutPrefix(s, "array:")
	if !ok {
		return ""
	}
	uuid, _, _ := strings.Cut(rest, ":")
	return uuid
}
