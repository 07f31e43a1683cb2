-- Which limit of the sandbox stopped a seat's bot (docs/sandbox.md): memory, processes,
-- CPU time or file size. Its seat's status says how it ended (crashed, disconnected);
-- this says why, beside it, for its owner and everyone.

ALTER TABLE match_seats
    ADD COLUMN stopped_by text CHECK (stopped_by IN ('memory', 'processes', 'cpu', 'file size'));
