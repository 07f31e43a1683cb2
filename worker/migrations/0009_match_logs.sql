-- What each hosted bot wrote (its standard output and error) while a match was played,
-- a bounded tail per seat (docs/sandbox.md): its owner's and the operators' to read.

CREATE TABLE match_logs (
    match_id  bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      integer NOT NULL CHECK (seat >= 0),
    log       text NOT NULL,
    PRIMARY KEY (match_id, seat)
);
