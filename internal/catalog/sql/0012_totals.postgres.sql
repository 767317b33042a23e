-- 0012 on PostgreSQL (applied as it is, not rewritten; see
-- 0012_totals.sqlite.sql for what it is): the same table, kept by
-- PL/pgSQL triggers.
CREATE TABLE card_totals (
    card_id BIGINT NOT NULL,
    dest_id BIGINT NOT NULL,
    state   TEXT COLLATE "C" NOT NULL,
    n       BIGINT NOT NULL,
    bytes   BIGINT NOT NULL,
    mtime_s BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (card_id, dest_id, state)
);

-- A card's failed files (listed with its verdict) without reading its
-- other files: a partial index, only failed rows in it.
CREATE INDEX files_failed ON files (card_id, rel_path) WHERE state = 'failed';

INSERT INTO card_totals (card_id, dest_id, state, n, bytes, mtime_s)
    SELECT card_id, 0, state, count(*), COALESCE(SUM(size), 0), COALESCE(SUM(mtime_ns / 1000000000), 0) FROM files GROUP BY card_id, state;
INSERT INTO card_totals (card_id, dest_id, state, n, bytes)
    SELECT card_id, dest_id, state, count(*), 0 FROM copies GROUP BY card_id, dest_id, state;

CREATE FUNCTION dit_files_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE card_totals SET n = n - 1, bytes = bytes - OLD.size, mtime_s = mtime_s - OLD.mtime_ns / 1000000000
            WHERE card_id = OLD.card_id AND dest_id = 0 AND state = OLD.state;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO card_totals AS t (card_id, dest_id, state, n, bytes, mtime_s) VALUES (NEW.card_id, 0, NEW.state, 1, NEW.size, NEW.mtime_ns / 1000000000)
            ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = t.n + 1, bytes = t.bytes + excluded.bytes, mtime_s = t.mtime_s + excluded.mtime_s;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER files_totals AFTER INSERT OR DELETE ON files FOR EACH ROW EXECUTE FUNCTION dit_files_totals();
CREATE TRIGGER files_totals_upd AFTER UPDATE ON files FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.size IS DISTINCT FROM NEW.size OR OLD.mtime_ns IS DISTINCT FROM NEW.mtime_ns OR OLD.card_id IS DISTINCT FROM NEW.card_id)
    EXECUTE FUNCTION dit_files_totals();

CREATE FUNCTION dit_copies_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE card_totals SET n = n - 1
            WHERE card_id = OLD.card_id AND dest_id = OLD.dest_id AND state = OLD.state;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO card_totals AS t (card_id, dest_id, state, n, bytes) VALUES (NEW.card_id, NEW.dest_id, NEW.state, 1, 0)
            ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = t.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER copies_totals AFTER INSERT OR DELETE ON copies FOR EACH ROW EXECUTE FUNCTION dit_copies_totals();
CREATE TRIGGER copies_totals_upd AFTER UPDATE ON copies FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.dest_id IS DISTINCT FROM NEW.dest_id OR OLD.card_id IS DISTINCT FROM NEW.card_id)
    EXECUTE FUNCTION dit_copies_totals();
