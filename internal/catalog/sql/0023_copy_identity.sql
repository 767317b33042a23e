-- 0023: each verified copy's identity on its medium when it was read
-- back (device, inode, size, modification and change times: see
-- internal/fsys.Identity), so that a resume re-reads a copy that is no
-- longer the file that was verified. '' for copies recorded before, and
-- on media that give no identity.
ALTER TABLE copies ADD COLUMN identity TEXT NOT NULL DEFAULT '';
