-- 0010: several carts, one production. station is the name of the cart
-- (dit --station, default the host name) that ran the job; its cards,
-- files and copies carry it through their job. uuid names the job
-- everywhere it is held: a cart's local catalog and the shared one it
-- pushes to (dit catalog sync), so that a job pushed twice is held once.
-- Jobs recorded before this version get a uuid when first pushed.
ALTER TABLE jobs ADD COLUMN station TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN uuid TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX jobs_uuid ON jobs (uuid) WHERE uuid <> '';
CREATE INDEX jobs_station ON jobs (station, started);
