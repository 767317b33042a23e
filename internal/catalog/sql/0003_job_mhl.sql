-- 0003: the hash lists a job writes into each card's folder (dit offload
-- --mhl: asc | v1 | both | none), so that a resumed job writes the same
-- lists as it started with. Jobs recorded before this column existed were
-- started when asc was the only default and read as 'asc'.
ALTER TABLE jobs ADD COLUMN mhl TEXT NOT NULL DEFAULT 'asc';
