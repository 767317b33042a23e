-- 0012 (SQLite; 0012_totals.postgres.sql is the same on PostgreSQL): each
-- card's files and copies counted by state, kept by triggers in the
-- transaction that writes the rows, so a job's verdict is read from a
-- few rows a card, not from every file. dest_id 0: the card's files (n
-- files, bytes their size, mtime_s the sum of their mtimes in whole
-- seconds); else its copies on that destination (bytes and mtime_s 0). A
-- row whose count fell to 0 stays. Backfilled from the rows there.
CREATE TABLE card_totals (
    card_id INTEGER NOT NULL,
    dest_id INTEGER NOT NULL,
    state   TEXT NOT NULL,
    n       INTEGER NOT NULL,
    bytes   INTEGER NOT NULL,
    mtime_s INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (card_id, dest_id, state)
) WITHOUT ROWID;

-- A card's failed files (listed with its verdict) without reading its
-- other files: a partial index, only failed rows in it.
CREATE INDEX files_failed ON files (card_id, rel_path) WHERE state = 'failed';

INSERT INTO card_totals (card_id, dest_id, state, n, bytes, mtime_s)
    SELECT card_id, 0, state, count(*), COALESCE(SUM(size), 0), COALESCE(SUM(mtime_ns / 1000000000), 0) FROM files GROUP BY card_id, state;
INSERT INTO card_totals (card_id, dest_id, state, n, bytes)
    SELECT card_id, dest_id, state, count(*), 0 FROM copies GROUP BY card_id, dest_id, state;

CREATE TRIGGER files_totals_ins AFTER INSERT ON files BEGIN
    INSERT INTO card_totals (card_id, dest_id, state, n, bytes, mtime_s) VALUES (NEW.card_id, 0, NEW.state, 1, NEW.size, NEW.mtime_ns / 1000000000)
        ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes, mtime_s = mtime_s + excluded.mtime_s;
END;
CREATE TRIGGER files_totals_upd AFTER UPDATE ON files
    WHEN OLD.state IS NOT NEW.state OR OLD.size IS NOT NEW.size OR OLD.mtime_ns IS NOT NEW.mtime_ns OR OLD.card_id IS NOT NEW.card_id BEGIN
    UPDATE card_totals SET n = n - 1, bytes = bytes - OLD.size, mtime_s = mtime_s - OLD.mtime_ns / 1000000000 WHERE card_id = OLD.card_id AND dest_id = 0 AND state = OLD.state;
    INSERT INTO card_totals (card_id, dest_id, state, n, bytes, mtime_s) VALUES (NEW.card_id, 0, NEW.state, 1, NEW.size, NEW.mtime_ns / 1000000000)
        ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes, mtime_s = mtime_s + excluded.mtime_s;
END;
CREATE TRIGGER files_totals_del AFTER DELETE ON files BEGIN
    UPDATE card_totals SET n = n - 1, bytes = bytes - OLD.size, mtime_s = mtime_s - OLD.mtime_ns / 1000000000 WHERE card_id = OLD.card_id AND dest_id = 0 AND state = OLD.state;
END;

CREATE TRIGGER copies_totals_ins AFTER INSERT ON copies BEGIN
    INSERT INTO card_totals (card_id, dest_id, state, n, bytes) VALUES (NEW.card_id, NEW.dest_id, NEW.state, 1, 0)
        ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER copies_totals_upd AFTER UPDATE ON copies
    WHEN OLD.state IS NOT NEW.state OR OLD.dest_id IS NOT NEW.dest_id OR OLD.card_id IS NOT NEW.card_id BEGIN
    UPDATE card_totals SET n = n - 1 WHERE card_id = OLD.card_id AND dest_id = OLD.dest_id AND state = OLD.state;
    INSERT INTO card_totals (card_id, dest_id, state, n, bytes) VALUES (NEW.card_id, NEW.dest_id, NEW.state, 1, 0)
        ON CONFLICT (card_id, dest_id, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER copies_totals_del AFTER DELETE ON copies BEGIN
    UPDATE card_totals SET n = n - 1 WHERE card_id = OLD.card_id AND dest_id = OLD.dest_id AND state = OLD.state;
END;
