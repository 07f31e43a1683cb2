-- What a worker logged about a match while it played it: its records of WARNING and up
-- carrying the match's id (the newest 50, each cut to 2,000 characters), kept when a play
-- had something to say (it failed, was given back, a seat's bot could not start), for the
-- match's page, "What the worker said" (docs/operations.md, "Logs"). One row per play;
-- the store keeps a match's newest 10. Not in match_logs: those are a seat's bot's own
-- output, one per seat, its owner's to read; these are the platform's, per play, the
-- operators' (and a line about one seat, that seat's owner's too).

CREATE TABLE match_worker_logs (
    id        bigserial PRIMARY KEY,
    match_id  bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    attempt   integer NOT NULL,
    worker    text NOT NULL,
    lines     jsonb NOT NULL CHECK (jsonb_typeof(lines) = 'array'),
    kept_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX match_worker_logs_match ON match_worker_logs (match_id, id);
