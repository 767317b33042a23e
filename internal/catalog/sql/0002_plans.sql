-- 0002: bus-budget plans (internal/plan, internal/sched) and the CPU
-- self-benchmark the planner uses. See internal/catalog/plans.go.

-- A plan of a job: seq 0 is the plan at the start, 1, 2, ... each re-plan
-- (a card finished copying and freed its budget). Rates are bytes per
-- second in field units; with --simulate-scale the job ran at rate x scale.
CREATE TABLE plans (
    id         INTEGER PRIMARY KEY,
    job_id     INTEGER NOT NULL REFERENCES jobs(id),
    seq        INTEGER NOT NULL,
    t          TEXT NOT NULL,                -- RFC 3339 UTC, nanoseconds
    reason     TEXT NOT NULL,                -- "start", "A003 copied", ...
    simulated  INTEGER NOT NULL DEFAULT 0,   -- 1: --simulate (media and buses throttled to their profiles)
    scale      REAL NOT NULL DEFAULT 1,      -- --simulate-scale
    total_rate REAL NOT NULL,                -- bytes/s of all cards together
    bottleneck TEXT NOT NULL DEFAULT '',     -- in words
    detail     TEXT NOT NULL DEFAULT '',     -- the whole plan as JSON (buses, destinations, cpu)
    UNIQUE (job_id, seq)
);

-- One card of a plan (only the cards still copying).
CREATE TABLE plan_cards (
    plan_id    INTEGER NOT NULL REFERENCES plans(id),
    name       TEXT NOT NULL,                -- the card's label
    card_id    INTEGER REFERENCES cards(id),
    rate       REAL NOT NULL,                -- bytes/s planned
    limited_by TEXT NOT NULL,                -- media | bus:NAME | dest:NAME | cpu | unknown
    eta_s      REAL,                         -- seconds from the plan's time; NULL: size unknown
    PRIMARY KEY (plan_id, name)
) WITHOUT ROWID;

-- Single-core hash speeds measured on a host (dit caches its short
-- self-benchmark here).
CREATE TABLE cpu_bench (
    host        TEXT NOT NULL,
    arch        TEXT NOT NULL,                -- GOOS/GOARCH
    algo        TEXT NOT NULL,
    bytes_per_s REAL NOT NULL,
    cores       INTEGER NOT NULL,
    measured    TEXT NOT NULL,
    PRIMARY KEY (host, arch, algo)
) WITHOUT ROWID;
