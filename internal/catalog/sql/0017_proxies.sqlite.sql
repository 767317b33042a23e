-- 0016 (SQLite; 0016_proxies.postgres.sql is its twin, the same table):
-- editorial proxies (dit offload --proxies, internal/proxies), made with
-- ffmpeg from a clip's verified copy, never the card. One row per proxy
-- and destination it was made on, or per clip whose proxy failed.
CREATE TABLE proxies (
    id          INTEGER PRIMARY KEY,
    job_id      INTEGER NOT NULL REFERENCES jobs(id),
    card_id     INTEGER NOT NULL REFERENCES cards(id),
    clip        TEXT NOT NULL,               -- the clip's name (clips.name)
    source      TEXT NOT NULL DEFAULT '',    -- the copy read: a path, or dit array + card-relative path
    dest        TEXT NOT NULL DEFAULT '',    -- the destination folder (-d) it is on
    path        TEXT NOT NULL DEFAULT '',    -- the proxy, relative to dest; '' when it failed
    preset      TEXT NOT NULL,               -- prores-proxy | h264 | dnxhr-lb | dnxhr-lb-mov, ",burnin"
    tc_start    TEXT NOT NULL DEFAULT '',    -- the source's start timecode, written into the proxy
    md5 TEXT, sha1 TEXT, xxh64 TEXT, xxh3 TEXT, xxh128 TEXT, c4 TEXT, blake3 TEXT,
    size        INTEGER NOT NULL DEFAULT 0,
    state       TEXT NOT NULL,               -- made | failed | cancelled | skipped
    error       TEXT NOT NULL DEFAULT '',    -- ffmpeg's error line
    made_at     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX proxies_job ON proxies(job_id, card_id);
