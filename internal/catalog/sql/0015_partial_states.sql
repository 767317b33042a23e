-- 0015: mid-file resume that reads the card only from the checkpoint.
-- states is the card side of a checkpoint (prev_states the one before),
-- text as [CardState.Encode] writes it: the card's hashers' saved states
-- at the offset and the xxh3-64 of the card's bytes since the checkpoint
-- before; '' when the job hashes with an algorithm that cannot save its
-- state (xxh3, xxh128, blake3), or for a row of an older dit: a resume
-- then reads the card's file from the start.
ALTER TABLE partials ADD COLUMN states TEXT NOT NULL DEFAULT '';
ALTER TABLE partials ADD COLUMN prev_states TEXT NOT NULL DEFAULT '';
