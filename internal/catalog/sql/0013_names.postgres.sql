-- 0013 on PostgreSQL (see 0013_names.sqlite.sql): a trigram index on the
-- files' lower-cased card-relative paths (extension pg_trgm), which
-- lower(rel_path) LIKE '%...%' uses. Where the extension cannot be
-- created (not installed, or not allowed to this user) a btree index on
-- lower(rel_path) serves prefixes only, and dit find reads the rest.
DO $$
BEGIN
    BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        EXECUTE 'CREATE INDEX files_rel_trgm ON files USING gin (lower(rel_path) gin_trgm_ops)';
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm not available (%): dit find uses a prefix index', SQLERRM;
        EXECUTE 'CREATE INDEX files_rel_lower ON files (lower(rel_path) text_pattern_ops)';
    END;
END $$;
