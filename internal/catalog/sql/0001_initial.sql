-- 0001: the first schema. See the package doc for the meaning of each table.
CREATE TABLE jobs (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL,
    state          TEXT NOT NULL,           -- running | interrupted | done | failed
    host           TEXT NOT NULL DEFAULT '',
    tool_version   TEXT NOT NULL DEFAULT '',
    pid            INTEGER NOT NULL DEFAULT 0,
    hashes         TEXT NOT NULL,           -- "md5,xxh64"
    verify_mode    TEXT NOT NULL,           -- none | dest | source+dest
    verify_hashes  TEXT NOT NULL,           -- fastest | all
    layout         TEXT NOT NULL,
    on_conflict    TEXT NOT NULL,
    include_hidden INTEGER NOT NULL DEFAULT 0,
    started        TEXT NOT NULL,           -- RFC 3339 UTC, nanoseconds
    finished       TEXT,
    error          TEXT NOT NULL DEFAULT ''
);

CREATE TABLE cards (
    id              INTEGER PRIMARY KEY,
    job_id          INTEGER NOT NULL REFERENCES jobs(id),
    seq             INTEGER NOT NULL,       -- order given on the command line
    label           TEXT NOT NULL,
    path            TEXT NOT NULL,
    volume_id       TEXT NOT NULL DEFAULT '',
    bytes           INTEGER NOT NULL DEFAULT 0,
    files           INTEGER NOT NULL DEFAULT 0,
    state           TEXT NOT NULL,          -- pending | copying | verifying | verified | copied | failed | interrupted
    copy_started    TEXT, copy_finished   TEXT,
    verify_started  TEXT, verify_finished TEXT,
    error           TEXT NOT NULL DEFAULT '',
    UNIQUE (job_id, seq)
);

CREATE TABLE destinations (
    id      INTEGER PRIMARY KEY,
    job_id  INTEGER NOT NULL REFERENCES jobs(id),
    seq     INTEGER NOT NULL,
    path    TEXT NOT NULL,                  -- the -d folder, absolute
    UNIQUE (job_id, seq)
);

CREATE TABLE files (
    card_id       INTEGER NOT NULL REFERENCES cards(id),
    rel_path      TEXT NOT NULL,            -- slash-separated, as on the card
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,         -- Unix nanoseconds
    state         TEXT NOT NULL,            -- pending | copied | verified | failed
    md5 TEXT, sha1 TEXT, xxh64 TEXT, xxh3 TEXT, xxh128 TEXT, c4 TEXT, blake3 TEXT,
    error         TEXT NOT NULL DEFAULT '',
    copy_started  TEXT, copy_finished TEXT,
    PRIMARY KEY (card_id, rel_path)
) WITHOUT ROWID;

CREATE TABLE copies (
    card_id     INTEGER NOT NULL,
    rel_path    TEXT NOT NULL,
    dest_id     INTEGER NOT NULL REFERENCES destinations(id),
    path        TEXT NOT NULL,              -- the copy, relative to the destination folder
    state       TEXT NOT NULL,              -- pending | copied | present | verified | failed | skipped
    written     INTEGER NOT NULL DEFAULT 0, -- 1: this job created the file at path
    verify_algos TEXT NOT NULL DEFAULT '',  -- algorithms recomputed on read-back
    verified_at TEXT,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (card_id, rel_path, dest_id)
) WITHOUT ROWID;

CREATE TABLE skipped (
    card_id  INTEGER NOT NULL REFERENCES cards(id),
    rel_path TEXT NOT NULL,
    kind     TEXT NOT NULL,                 -- metadata | symlink | fifo | socket | device | unreadable
    reason   TEXT NOT NULL,
    PRIMARY KEY (card_id, rel_path)
) WITHOUT ROWID;

CREATE TABLE samples (
    id       INTEGER PRIMARY KEY,
    job_id   INTEGER NOT NULL REFERENCES jobs(id),
    card_id  INTEGER REFERENCES cards(id),
    dest_id  INTEGER REFERENCES destinations(id),  -- NULL: the card's read side
    t        TEXT NOT NULL,
    bytes    INTEGER NOT NULL,              -- bytes so far in this phase
    rate     REAL NOT NULL,                 -- bytes per second over the last second
    phase    TEXT NOT NULL                  -- copy | verify
);
CREATE INDEX samples_job ON samples(job_id, card_id, dest_id, t);
