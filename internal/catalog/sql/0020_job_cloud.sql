-- 0020: how a job reaches its cloud destinations (rclone:REMOTE:PATH),
-- so that a resumed job (dit offload --resume, dit verify) uses what it
-- started with. rclone_config: the rclone configuration file given with
-- --rclone-config, absolute; '' rclone's own choice (RCLONE_CONFIG or
-- its usual file; also every job recorded before this column).
-- cloud_bwlimit: the upload bandwidth limit (--cloud-bwlimit) in bytes
-- per second, 0 none.
ALTER TABLE jobs ADD COLUMN rclone_config TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN cloud_bwlimit BIGINT NOT NULL DEFAULT 0;
