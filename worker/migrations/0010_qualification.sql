-- Qualification (docs/bots.md, "Qualification"): a version submitted by a user first
-- plays short matches against the random bot at each seat count of its game; only a
-- version that passed (qualified) or that an operator vouched for (exempt) is seated in
-- tournaments, gauntlets, duels and ladders. A failed one keeps its report: the
-- referee's reason, the decision it failed on and the tail of its standard error.
-- The versions stored before qualification existed were never checked: exempt.

ALTER TABLE bot_versions
    ADD COLUMN qualification text NOT NULL DEFAULT 'exempt'
        CHECK (qualification IN ('exempt', 'qualifying', 'qualified', 'failed')),
    ADD COLUMN qualification_report jsonb,
    -- when its qualification was last sent to the workers (the sweep sends it again)
    ADD COLUMN qualification_sent_at timestamptz;

CREATE INDEX bot_versions_qualifying ON bot_versions (qualification_sent_at)
    WHERE qualification = 'qualifying';
