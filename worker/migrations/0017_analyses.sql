-- "Where did my bot lose?" (docs/bots.md, "Where did my bot lose?"): the reference bot's
-- analysis of every decision of one seat of a finished match, computed once (it takes
-- seconds) and read back by `arena analyse` and the replay page. The analysis is made from
-- that seat's view only; `analysis` is its documented JSON.

CREATE TABLE match_analyses (
    match_id   bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat       integer NOT NULL CHECK (seat >= 0),
    budget_ms  integer NOT NULL CHECK (budget_ms > 0),
    made_by    text NOT NULL,
    made_at    timestamptz NOT NULL DEFAULT now(),
    analysis   jsonb NOT NULL CHECK (jsonb_typeof(analysis) = 'object'),
    PRIMARY KEY (match_id, seat)
);
