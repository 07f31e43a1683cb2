-- API keys kept as the SHA-256 of their secret (docs/api.md, "API keys"): a secret of 256
-- random bits cannot be guessed, so it needs neither a salt nor a slow hash, and a check
-- costs one hash instead of 0.1 s of scrypt (which let a flood of made-up keys hold up
-- everyone else's). A key made before keeps its scrypt hash and gets its SHA-256 at its
-- next successful check (worker/store/users.py); every key has at least one of the two.
-- The scrypt hashes stay for the release before, which reads only them, during a rolling
-- upgrade; a later migration drops them.
ALTER TABLE api_keys
    ADD COLUMN secret_sha256 text UNIQUE CHECK (secret_sha256 ~ '^[0-9a-f]{64}$'),
    ALTER COLUMN secret_hash DROP NOT NULL,
    ADD CHECK (secret_sha256 IS NOT NULL OR secret_hash IS NOT NULL);
