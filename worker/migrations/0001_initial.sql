-- Bots and their versions, tournaments and ladders, matches with their state machine,
-- per-seat results, match records and Elo ratings (docs/storage.md).

CREATE TABLE bots (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    owner       text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One submitted version of a bot: the code as an archive, and a manifest naming the game
-- and the command to run. The content hash is sha256 of the archive.
CREATE TABLE bot_versions (
    id            bigserial PRIMARY KEY,
    bot_id        bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    version       integer NOT NULL,
    content_hash  text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    archive       bytea NOT NULL,
    manifest      jsonb NOT NULL CHECK (manifest ? 'game' AND manifest ? 'command'),
    game          text NOT NULL,
    submitted_by  text NOT NULL,
    submitted_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bot_id, version),
    UNIQUE (bot_id, content_hash)
);

CREATE TABLE tournaments (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL,
    game        text NOT NULL,
    format      text NOT NULL DEFAULT 'round-robin',
    options     jsonb NOT NULL DEFAULT '{}',
    duplicate   boolean NOT NULL DEFAULT false,
    state       text NOT NULL DEFAULT 'open'
                CHECK (state IN ('open', 'running', 'done', 'cancelled')),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tournament_entries (
    tournament_id   bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id),
    PRIMARY KEY (tournament_id, bot_version_id)
);

CREATE TABLE ladders (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    game        text NOT NULL,
    options     jsonb NOT NULL DEFAULT '{}',
    active      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ladder_entries (
    ladder_id       bigint NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id),
    joined_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ladder_id, bot_version_id)
);

-- Completion order of matches: drawn inside the finishing transaction after the rating
-- rows are locked, so it is the order in which rating updates were applied.
CREATE SEQUENCE match_finish_seq;

-- A match (ARCHITECTURE decisions 2 and 6). The seed is committed to before play:
-- seed_commitment = sha256(8-byte big-endian seed || seed_salt).
CREATE TABLE matches (
    id               bigserial PRIMARY KEY,
    game             text NOT NULL,
    options          jsonb NOT NULL DEFAULT '{}',
    seed             numeric(20, 0) NOT NULL CHECK (seed >= 0 AND seed < 18446744073709551616),
    seed_salt        bytea NOT NULL,
    seed_commitment  bytea NOT NULL CHECK (length(seed_commitment) = 32),
    num_seats        smallint NOT NULL CHECK (num_seats >= 1),
    tournament_id    bigint REFERENCES tournaments (id) ON DELETE SET NULL,
    ladder_id        bigint REFERENCES ladders (id) ON DELETE SET NULL,
    duplicate_set    bigint,
    rotation         smallint,
    state            text NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts         integer NOT NULL DEFAULT 0,
    max_attempts     integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    lease_holder     text,
    lease_expires    timestamptz,
    error            text,
    finish_seq       bigint UNIQUE,
    created_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz,
    CHECK ((state = 'running') = (lease_holder IS NOT NULL AND lease_expires IS NOT NULL))
);
CREATE INDEX matches_queued ON matches (id) WHERE state = 'queued';
CREATE INDEX matches_running_lease ON matches (lease_expires) WHERE state = 'running';
CREATE INDEX matches_game_finish ON matches (game, finish_seq) WHERE finish_seq IS NOT NULL;
CREATE INDEX matches_tournament ON matches (tournament_id) WHERE tournament_id IS NOT NULL;
CREATE INDEX matches_ladder ON matches (ladder_id) WHERE ladder_id IS NOT NULL;
CREATE INDEX matches_duplicate_set ON matches (duplicate_set) WHERE duplicate_set IS NOT NULL;

-- The seats of a match and, once it is done, each seat's result.
CREATE TABLE match_seats (
    match_id        bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat            smallint NOT NULL CHECK (seat >= 0),
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id),
    rank            smallint,
    score           integer,
    status          text,
    forfeit         boolean,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_bot ON match_seats (bot_version_id, match_id);

-- The stored record (the protobuf MatchRecord, opaque to the store) and searchable columns.
CREATE TABLE match_records (
    match_id         bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    game             text NOT NULL,
    format           text NOT NULL,
    record           bytea NOT NULL,
    record_sha256    bytea NOT NULL,
    bot_version_ids  bigint[] NOT NULL,
    winners          bigint[] NOT NULL,
    num_actions      integer,
    duration_ms      integer,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX match_records_bots ON match_records USING gin (bot_version_ids);
CREATE INDEX match_records_game_time ON match_records (game, created_at);

-- Online Elo per game and bot version, and every update it went through.
CREATE TABLE ratings (
    game            text NOT NULL,
    bot_version_id  bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    rating          double precision NOT NULL DEFAULT 1500,
    games           integer NOT NULL DEFAULT 0,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game, bot_version_id)
);

CREATE TABLE rating_history (
    game            text NOT NULL,
    bot_version_id  bigint NOT NULL,
    match_id        bigint NOT NULL,  -- derived data, rebuilt by a recompute: no foreign key
    finish_seq      bigint NOT NULL,
    k               double precision NOT NULL,
    rating_before   double precision NOT NULL,
    rating_after    double precision NOT NULL,
    PRIMARY KEY (game, bot_version_id, finish_seq)
);
CREATE INDEX rating_history_match ON rating_history (match_id);
