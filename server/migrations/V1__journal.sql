-- The journal on PostgreSQL (docs/journal.md, "On PostgreSQL"): the same three things the
-- sled store keeps. Applied by refinery when a controller first opens the database.

-- Every entry by its sequence: the primary key is the fence, two writers can never both
-- commit entry N.
CREATE TABLE pozo_journal (
    sequence BIGINT PRIMARY KEY CHECK (sequence > 0),
    entry    BYTEA  NOT NULL
);

-- The tip record, one row, written in the same statement as the entries it follows.
CREATE TABLE pozo_tip (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    record   BYTEA   NOT NULL
);

-- Named values: the journal's identity, the latest snapshot, the seal.
CREATE TABLE pozo_meta (
    key   TEXT  PRIMARY KEY,
    value BYTEA NOT NULL
);
