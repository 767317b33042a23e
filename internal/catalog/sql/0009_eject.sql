-- 0009: what happened when dit watch ejected a card once it was free:
-- "<RFC 3339 time> ejected: ..." or "<time> not ejected: why" ('' when it
-- was not asked to).
ALTER TABLE cards ADD COLUMN eject TEXT NOT NULL DEFAULT '';
