-- 0013 (SQLite; 0013_names.postgres.sql on PostgreSQL): an index of the
-- files' card-relative paths by trigrams, so dit find does not read every
-- file. file_names is an FTS5 table (tokenizer trigram: any substring of
-- three characters or more, case-insensitive, is looked up in the index
-- by LIKE; detail=none: no positions kept, a third cheaper to write),
-- one row per files row, kept by triggers; filled from the
-- rows there.
CREATE VIRTUAL TABLE file_names USING fts5(rel_path, card_id UNINDEXED, tokenize = 'trigram', detail = none);

INSERT INTO file_names (rel_path, card_id) SELECT rel_path, card_id FROM files;

CREATE TRIGGER files_names_ins AFTER INSERT ON files BEGIN
    INSERT INTO file_names (rel_path, card_id) VALUES (NEW.rel_path, NEW.card_id);
END;
CREATE TRIGGER files_names_upd AFTER UPDATE OF rel_path, card_id ON files BEGIN
    DELETE FROM file_names WHERE rowid IN (SELECT rowid FROM file_names WHERE rel_path LIKE OLD.rel_path) AND card_id = OLD.card_id AND rel_path = OLD.rel_path;
    INSERT INTO file_names (rel_path, card_id) VALUES (NEW.rel_path, NEW.card_id);
END;
CREATE TRIGGER files_names_del AFTER DELETE ON files BEGIN
    DELETE FROM file_names WHERE rowid IN (SELECT rowid FROM file_names WHERE rel_path LIKE OLD.rel_path) AND card_id = OLD.card_id AND rel_path = OLD.rel_path;
END;
