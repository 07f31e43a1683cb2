-- A queued match may wait before it is claimed again (`not_before`: the back-off of a
-- retry), and the sweep finds queued matches that no task is working on (after a
-- broker loss, say) by when work was last sent for them: `dispatched_at` on a match
-- enqueued by itself, on its tournament for a tournament's drain tasks.
ALTER TABLE matches ADD COLUMN not_before timestamptz;
ALTER TABLE matches ADD COLUMN dispatched_at timestamptz;
ALTER TABLE tournaments ADD COLUMN dispatched_at timestamptz;
