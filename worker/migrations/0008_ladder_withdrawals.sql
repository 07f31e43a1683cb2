-- A bot withdrawn from a ladder by its owner (docs/api.md): every bot of a ladder's game
-- is in its pool unless withdrawn; joining again removes the row.

CREATE TABLE ladder_withdrawals (
    ladder_id     bigint NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
    bot_id        bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    withdrawn_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ladder_id, bot_id)
);
