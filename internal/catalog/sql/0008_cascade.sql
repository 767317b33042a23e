-- 0008: cascading copy. A job's destinations are in a first run (hop 1:
-- the card is read) or a second run (hop 2: filled from the first copy,
-- so the card is free once the first run verified it). A hop-2 card row is
-- the first copy of a hop-1 card (from_card), copied to the hop-2
-- destinations. done_at is the time a card reached its final state
-- (verified: hash lists written); for a hop-1 card of a cascade it is the
-- time the card was free.
ALTER TABLE destinations ADD COLUMN hop INTEGER NOT NULL DEFAULT 1;
ALTER TABLE cards ADD COLUMN hop INTEGER NOT NULL DEFAULT 1;
ALTER TABLE cards ADD COLUMN from_card INTEGER REFERENCES cards(id);
ALTER TABLE cards ADD COLUMN done_at TEXT;
ALTER TABLE jobs ADD COLUMN then_parallel INTEGER NOT NULL DEFAULT 1;
