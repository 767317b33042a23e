-- 0021: what a destination costs beyond its bytes, measured after each
-- job (internal/sched.LearnCosts), one row per card run and destination:
-- per file copied and read back, and per card before its first byte and
-- from its last byte read back to safe to format (sealing, cloud
-- listings, the history's upload). The planner uses the recent ones of a
-- volume or remote in place of its kind's defaults, as it uses speed
-- tests. And plans.run_detail: a simulated job's plan in the units of
-- the run. Plain SQL for SQLite and PostgreSQL alike. (The number may
-- change at a merge; it depends only on 0002.)
CREATE TABLE costs (
    id                INTEGER PRIMARY KEY,
    volume            TEXT NOT NULL,               -- as speedtests.volume; rclone:REMOTE for a cloud remote
    kind              TEXT NOT NULL,               -- folder | array | cloud
    path              TEXT NOT NULL,               -- the destination as the job had it
    t                 TEXT NOT NULL,               -- when the card's run ended
    station           TEXT NOT NULL DEFAULT '',
    job_uuid          TEXT NOT NULL DEFAULT '',    -- the job's uuid (jobs.uuid): no reference, the row outlives the job
    card              TEXT NOT NULL DEFAULT '',    -- the card's label
    hop               INTEGER NOT NULL DEFAULT 1,  -- 2: a cascade's second run
    files             INTEGER NOT NULL,
    bytes             INTEGER NOT NULL,
    per_file_s        REAL,                        -- seconds each file added to the copy; NULL: not measured
    verify_per_file_s REAL,                        -- ... to its read-back; NULL: not measured
    start_s           REAL,                        -- before the first byte, this destination's part; NULL: not measured
    fixed_s           REAL,                        -- from the last byte read back to the end, this destination's part; NULL: not measured
    detail            TEXT NOT NULL DEFAULT ''     -- how, in words (the byte rate taken)
);
CREATE INDEX costs_volume ON costs(volume, t);
ALTER TABLE plans ADD COLUMN run_detail TEXT NOT NULL DEFAULT '';
