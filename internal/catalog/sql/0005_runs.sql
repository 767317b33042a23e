-- 0005: figures that survive interruptions. samples.seconds is the length
-- of the interval a sample covers (the sampler's tick, or less for the
-- last one), so that the time a card spent copying or verifying is the sum
-- of its samples' intervals, pauses and interruptions left out. runs are
-- the job's runs: one row each time dit offload starts or resumes it;
-- finished is NULL for a run whose process was killed.
ALTER TABLE samples ADD COLUMN seconds REAL;
CREATE TABLE runs (
    job_id   INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    started  TEXT NOT NULL,
    finished TEXT,
    PRIMARY KEY (job_id, seq)
);
