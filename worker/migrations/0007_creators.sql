-- Who made a tournament (docs/api.md): the user name it was made as (an operator acting
-- with the database's credentials need not be a user), or NULL for those made
-- before users existed. Writes are counted per user and hour for the API's rate limits
-- (tournaments by creator, submissions by submitter), so both have an index.

ALTER TABLE tournaments
    ADD COLUMN created_by text;
CREATE INDEX tournaments_creator_time ON tournaments (created_by, created_at);
CREATE INDEX bot_versions_submitter_time ON bot_versions (submitted_by, submitted_at);
