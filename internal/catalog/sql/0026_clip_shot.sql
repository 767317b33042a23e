-- 0026: what the camera was set to for a clip, as its sidecar said it
-- (internal/clips.Shot): ISO (exposure index), white balance ("5600K")
-- and lens, so that a report built later from the catalog (dit report)
-- has the clip sheet's and the ALE's columns the job's own reports had.
-- '' where nothing said it, and for every clip recorded before this
-- version. Plain SQL for SQLite and PostgreSQL alike.
ALTER TABLE clips ADD COLUMN iso TEXT NOT NULL DEFAULT '';
ALTER TABLE clips ADD COLUMN white_balance TEXT NOT NULL DEFAULT '';
ALTER TABLE clips ADD COLUMN lens TEXT NOT NULL DEFAULT '';
