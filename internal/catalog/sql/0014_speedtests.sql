-- 0014: speed tests (dit speedtest): what a volume sustained when it was
-- measured, kept per volume by an id that outlives its mount path
-- (fs-uuid:..., fsid:..., array:..., blade:...; path:... where the system
-- gives none). The planner uses the latest of a volume in place of its
-- table rates. Plain SQL for SQLite and PostgreSQL alike.
CREATE TABLE speedtests (
    id          INTEGER PRIMARY KEY,
    volume      TEXT NOT NULL,
    kind        TEXT NOT NULL,               -- folder | card | blade | array
    path        TEXT NOT NULL,               -- where it was mounted then
    t           TEXT NOT NULL,               -- when the test started
    station     TEXT NOT NULL DEFAULT '',
    link        TEXT NOT NULL DEFAULT '',    -- the bus it was on: usb3.2-gen2 via 0000:00:14.0
    size        INTEGER NOT NULL,
    block       INTEGER NOT NULL,
    streams     INTEGER NOT NULL,
    write_rate  REAL NOT NULL DEFAULT 0,     -- bytes/s, mean; 0: not written (a card)
    read_rate   REAL NOT NULL DEFAULT 0,     -- bytes/s, mean
    sustained   REAL NOT NULL DEFAULT 0,     -- bytes/s written after a cache ran out; 0: no cliff
    cliff_at    INTEGER NOT NULL DEFAULT 0,  -- bytes written before it did
    direct      INTEGER NOT NULL DEFAULT 0,  -- 1: the page cache was bypassed
    detail      TEXT NOT NULL DEFAULT ''     -- the whole result as JSON (curves)
);
CREATE INDEX speedtests_volume ON speedtests(volume, t);
