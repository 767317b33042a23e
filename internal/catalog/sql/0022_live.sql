-- 0022: the live model's latest snapshot of a running job (package
-- internal/live, as JSON), written by the engine once a second, so that
-- front ends in other processes (dit serve, dit watch) render the same
-- figures and estimates as the CLI and dit-gui. One row a job, replaced.
CREATE TABLE live (
	job_id INTEGER NOT NULL,
	t TEXT NOT NULL,
	snapshot TEXT NOT NULL,
	PRIMARY KEY (job_id)
);
