-- Users and their API keys (docs/architecture.md, decision 14): a bot's owner is a
-- user, and a retired bot gets no new matches (docs/storage.md, docs/api.md).

CREATE TABLE users (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    operator    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- A key is PREFIX.SECRET: the prefix is public (listings show it, lookups use it), the
-- secret is kept only as a salted scrypt hash, `$scrypt$ln=…,r=…,p=…$SALT$HASH`.
CREATE TABLE api_keys (
    id            bigserial PRIMARY KEY,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    prefix        text NOT NULL UNIQUE CHECK (prefix ~ '^[0-9a-f]{12}$'),
    secret_hash   text NOT NULL CHECK (secret_hash LIKE '$scrypt$%'),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id);

-- The platform's own user: it owns the house bots (the example bots `arena demo`
-- registers), which anyone may play against. It holds no key.
INSERT INTO users (name) VALUES ('arena');

-- The bots the demo registered before (its names, every version one of the example
-- files) become house bots; every other owner becomes a user of that name.
UPDATE bots SET owner = 'arena'
WHERE name ~ '^(random|minimal|heuristic)-(hollywood-gin|gin-three|rummy-500|flip-flop)$'
  AND NOT EXISTS (
      SELECT 1 FROM bot_versions v
      WHERE v.bot_id = bots.id
        AND (v.manifest -> 'command' ->> -1) IS DISTINCT FROM
            split_part(bots.name, '-', 1) || '_bot.py'
  );
INSERT INTO users (name) SELECT DISTINCT owner FROM bots ON CONFLICT (name) DO NOTHING;

ALTER TABLE bots
    ADD CONSTRAINT bots_owner_is_a_user
    FOREIGN KEY (owner) REFERENCES users (name) ON UPDATE CASCADE;
ALTER TABLE bots ADD COLUMN retired_at timestamptz;
