-- 0018: a job's editorial proxies (dit offload --proxies PRESET[,burnin],
-- --proxies-to), so that a resumed job makes the proxies it started
-- with. proxies: the spec as --proxies takes it ("prores-proxy,burnin"),
-- '' for a job without proxies; NULL for a job recorded before this
-- column existed, which did not say (a resume then makes those it is
-- given). proxies_to: the destinations the proxies go to, one per line.
ALTER TABLE jobs ADD COLUMN proxies TEXT;
ALTER TABLE jobs ADD COLUMN proxies_to TEXT NOT NULL DEFAULT '';
