-- 0025: a clip's sound and its disagreements, as the Clipper read them
-- from the media (internal/clips: Audio, Conflicts), so that a report
-- built later from the catalog alone (dit report) has the ALE's Tracks,
-- the audio columns and the "media and sidecar disagree" lines the job's
-- own reports had. Plain SQL for SQLite and PostgreSQL alike.
-- audio_streams NULL: nothing read the clip's sound (a format ffprobe
-- does not read, no ffmpeg, and every clip recorded before this
-- version); 0 with the others 0 and '': the media has no sound (MOS).
ALTER TABLE clips ADD COLUMN audio_streams INTEGER;
ALTER TABLE clips ADD COLUMN audio_channels INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clips ADD COLUMN audio_rate INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clips ADD COLUMN audio_bits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clips ADD COLUMN audio_codec TEXT NOT NULL DEFAULT '';
-- conflicts: a JSON array of strings, one disagreement each ("frames:
-- sidecar 120, media 96 (the media's kept)"), in the order found; ''
-- when there is none.
ALTER TABLE clips ADD COLUMN conflicts TEXT NOT NULL DEFAULT '';
