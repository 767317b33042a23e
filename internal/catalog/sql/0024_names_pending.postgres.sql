-- 0024 on PostgreSQL (see 0024_names_pending.sqlite.sql): nothing; its
-- names index (pg_trgm, 0013) is an index of the files table itself.
SELECT 1;
