-- 0007: mid-file resume. While a big file is copied, each destination's
-- writer makes its temp durable every checkpoint (dit offload
-- --checkpoint-every, default 64 MiB) and records here how far it is and
-- the xxh3-64 of that prefix as read from the card; prev_* keep the
-- checkpoint before, so that destinations that stopped one checkpoint
-- apart still share one. A resume re-reads a temp's prefix, checks it
-- against the digest, and reads the card only from there on. A row goes
-- when its file reaches its final state.
CREATE TABLE partials (
    card_id     INTEGER NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
    rel_path    TEXT NOT NULL,
    dest_id     INTEGER NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    temp        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    digest      TEXT NOT NULL,
    prev_offset INTEGER NOT NULL DEFAULT 0,
    prev_digest TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (card_id, rel_path, dest_id)
);
