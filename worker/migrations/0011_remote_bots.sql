-- Remote bots (docs/bots.md, "Running your bot from home"): a bot that runs on its
-- author's machine and dials a worker host's referee with its owner's API key. Its
-- version holds no code (its manifest's runtime is "remote"); while it is connected, the
-- host it reached refreshes its row here, and only that host plays its matches.

ALTER TABLE bot_versions
    ADD COLUMN remote boolean GENERATED ALWAYS AS (manifest->>'runtime' = 'remote') STORED;

CREATE TABLE remote_sessions (
    bot_version_id  bigint PRIMARY KEY REFERENCES bot_versions (id) ON DELETE CASCADE,
    host            text NOT NULL,
    agent           text NOT NULL DEFAULT '',
    connected_at    timestamptz NOT NULL DEFAULT now(),
    seen_at         timestamptz NOT NULL DEFAULT now()
);
