-- 0004: the proof step of a card. A card whose files all reached their
-- final state is "sealing" until its hash lists are written and durable on
-- every destination; only then is it "verified" (safe to format). sealed is
-- the time of the card's hash lists: set when sealing starts and kept, so a
-- seal interrupted by a crash is redone as the same generation (not a
-- second one).
ALTER TABLE cards ADD COLUMN sealed TEXT;
