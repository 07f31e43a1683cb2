-- Signing in to the web pages (docs/viewer.md, "Signing in"): a user gives an API key
-- once and gets a session, a random token kept in a cookie; only its SHA-256 is stored.
-- A session ends when it expires, when its user signs out, or when the key it was made
-- with is revoked.

CREATE TABLE web_sessions (
    token_hash  text PRIMARY KEY,
    key_id      bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
