-- 0006: a job's ignore patterns (dit offload --ignore / --ignore-file, ASC
-- MHL's gitignore-style syntax), one per line: files they match are not
-- copied, and each card's hash list records the patterns, so a resumed job
-- skips the same files and the history still verifies.
ALTER TABLE jobs ADD COLUMN ignore TEXT NOT NULL DEFAULT '';
