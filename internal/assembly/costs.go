package assembly

import (
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/sched"
)

// LearnCosts measures, after a job, what its destinations cost its
// cards beyond their bytes (per file copied and read back, per card
// before its first byte and after its last byte read back) and records
// it in cat, so the next plans of those volumes and remotes count it
// (sched.LearnCosts). A front end calls it once a job has ended; a
// resumed job teaches nothing.
func LearnCosts(cat *catalog.Catalog, jobID int64) ([]catalog.Costs, error) {
	return sched.LearnCosts(cat, jobID)
}
