-- 0011: the clips of each card (internal/clips recognises them from the
-- card's folders, file names and sidecars after the card is copied). Plain
-- SQL for SQLite and PostgreSQL alike. One row per clip; a card whose files
-- make no clip has none.
CREATE TABLE clips (
    card_id    INTEGER NOT NULL REFERENCES cards(id),
    seq        INTEGER NOT NULL,            -- 1, 2, ... in the card's order
    name       TEXT NOT NULL,               -- A001C003_230512_R2EC
    reel       TEXT NOT NULL DEFAULT '',
    family     TEXT NOT NULL DEFAULT '',    -- ARRI | Sony | RED | Blackmagic | Canon | DCIM | ''
    camera     TEXT NOT NULL DEFAULT '',
    clip_type  TEXT NOT NULL DEFAULT '',    -- ARRIRAW | ProRes | X-OCN | XAVC | R3D | BRAW | ...
    codec      TEXT NOT NULL DEFAULT '',
    poster     TEXT NOT NULL DEFAULT '',    -- card-relative path of the clip's first media file
    files      INTEGER NOT NULL DEFAULT 0,  -- media files and sidecars
    bytes      INTEGER NOT NULL DEFAULT 0,
    frames     INTEGER NOT NULL DEFAULT 0,
    fps        TEXT NOT NULL DEFAULT '',
    seconds    REAL NOT NULL DEFAULT 0,
    resolution TEXT NOT NULL DEFAULT '',
    tc_start   TEXT NOT NULL DEFAULT '',
    serial     TEXT NOT NULL DEFAULT '',
    verified   INTEGER NOT NULL DEFAULT 0,  -- 1: every file of the clip verified
    thumb      TEXT NOT NULL DEFAULT '',    -- poster frame, relative to the job's reports folder
    thumb_note TEXT NOT NULL DEFAULT '',    -- why there is none ("ffmpeg not found", ...)
    PRIMARY KEY (card_id, seq)
);
CREATE INDEX clips_name ON clips(name);
