-- 0024 (SQLite; 0024_names_pending.postgres.sql on PostgreSQL: nothing):
-- a new file's name reaches the names index (file_names, FTS5) once a
-- transaction, not once a row. FTS5 writes what it holds to disk at every
-- statement savepoint of a transaction that wrote to it (every later
-- statement with a trigger: each copy's row), a segment a few rows long,
-- and then merges those segments: on a card of 100,000 frames a fifth of
-- the offload's CPU. A new row's name now goes to file_names_pending
-- (a plain table) by the trigger, and the writer moves the pending names
-- into file_names in one statement at the end of each transaction
-- (flushNames). dit find reads both.
CREATE TABLE file_names_pending (rel_path TEXT NOT NULL, card_id INTEGER NOT NULL);

DROP TRIGGER files_names_ins;
CREATE TRIGGER files_names_ins AFTER INSERT ON files BEGIN
    INSERT INTO file_names_pending (rel_path, card_id) VALUES (NEW.rel_path, NEW.card_id);
END;
DROP TRIGGER files_names_upd;
CREATE TRIGGER files_names_upd AFTER UPDATE OF rel_path, card_id ON files BEGIN
    DELETE FROM file_names WHERE rowid IN (SELECT rowid FROM file_names WHERE rel_path LIKE OLD.rel_path) AND card_id = OLD.card_id AND rel_path = OLD.rel_path;
    DELETE FROM file_names_pending WHERE card_id = OLD.card_id AND rel_path = OLD.rel_path;
    INSERT INTO file_names_pending (rel_path, card_id) VALUES (NEW.rel_path, NEW.card_id);
END;
DROP TRIGGER files_names_del;
CREATE TRIGGER files_names_del AFTER DELETE ON files BEGIN
    DELETE FROM file_names WHERE rowid IN (SELECT rowid FROM file_names WHERE rel_path LIKE OLD.rel_path) AND card_id = OLD.card_id AND rel_path = OLD.rel_path;
    DELETE FROM file_names_pending WHERE card_id = OLD.card_id AND rel_path = OLD.rel_path;
END;
