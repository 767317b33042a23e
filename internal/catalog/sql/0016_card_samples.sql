-- 0016: a job's activity (bytes moved, time spent: what dit jobs, dit
-- day, dit serve and dit job show print as TB/hour) is summed from the
-- cards' own samples (dest_id NULL), a third of a job's samples; this
-- index holds every column that sum reads (dest_id too: SQLite reads an
-- index alone only when it holds every column the query names), so it is
-- read from the index alone, not from every sample row. Plain SQL for
-- SQLite and PostgreSQL alike. (The number may change at a merge; it
-- depends only on 0005.)
CREATE INDEX samples_card_side ON samples(job_id, card_id, phase, t, rate, seconds, dest_id) WHERE dest_id IS NULL;
