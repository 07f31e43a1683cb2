-- Ladder ratings: Plackett–Luce μ and σ (worker/skill.py) per ladder and bot version,
-- applied to the ladder's finished matches in completion order by the scheduler's tick.
-- through_seq is the completion number (matches.finish_seq) of the last match applied.
ALTER TABLE ladders ADD COLUMN through_seq bigint NOT NULL DEFAULT 0;

CREATE TABLE ladder_ratings (
    ladder_id       bigint NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    mu              double precision NOT NULL,
    sigma           double precision NOT NULL,
    games           integer NOT NULL DEFAULT 0,
    last_played_at  timestamptz,
    PRIMARY KEY (ladder_id, bot_version_id)
);
