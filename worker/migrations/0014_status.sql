-- What `arena status` reads without scanning the matches: when each ladder was last
-- ticked (the tick's transaction sets it), and the matches finished (done, failed or
-- cancelled) by the time they finished, for the counts of the last hour.
ALTER TABLE ladders ADD COLUMN ticked_at timestamptz;
CREATE INDEX matches_finished_at ON matches (finished_at) WHERE finished_at IS NOT NULL;
