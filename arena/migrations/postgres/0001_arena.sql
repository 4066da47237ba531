-- The arena's first schema on PostgreSQL (spec/arena.md, "Tables"): the same tables, columns,
-- keys and checks as ../sqlite/0001_arena.sql, statement for statement (a test of the store
-- compares the two files' tables and columns, so they cannot drift), with PostgreSQL's spelling where SQLite's differs: an
-- identity column for SQLite's INTEGER PRIMARY KEY (its rowid), BYTEA for BLOB. Every integer
-- is BIGINT and every real DOUBLE PRECISION, so a value decodes as the same Rust type (i64,
-- f64, Vec<u8>) on both engines; times are integer seconds since the Unix epoch and booleans
-- 0/1 integers, as in SQLite.

CREATE TABLE authors (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE bots (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    author_id BIGINT NOT NULL REFERENCES authors (id),
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    token_hash BYTEA NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    -- NULL while the bot may play; otherwise why it may not (shown to its author).
    paused_reason TEXT,
    house BIGINT NOT NULL DEFAULT 0 CHECK (house IN (0, 1)),
    tables_at_once BIGINT NOT NULL DEFAULT 1 CHECK (tables_at_once >= 1),
    games_per_day BIGINT NOT NULL DEFAULT 2000 CHECK (games_per_day >= 1),
    -- When it finished its qualifying games; NULL while it is a newcomer. Once set, never unset.
    admitted_at BIGINT,
    UNIQUE (name, version)
);

CREATE TABLE deals (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- A fresh random seed per deal, never reused, so no bot is dealt the same cards twice.
    seed BIGINT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    -- The seed may be shown once the deal's last table has ended.
    published BIGINT NOT NULL DEFAULT 0 CHECK (published IN (0, 1)),
    -- Its comparisons are in: set in the same transaction that inserts them, exactly once.
    scored BIGINT NOT NULL DEFAULT 0 CHECK (scored IN (0, 1))
);

CREATE TABLE games (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deal_id BIGINT NOT NULL REFERENCES deals (id),
    table_no BIGINT NOT NULL,
    seat0 BIGINT NOT NULL REFERENCES bots (id),
    seat1 BIGINT NOT NULL REFERENCES bots (id),
    seat2 BIGINT NOT NULL REFERENCES bots (id),
    seat3 BIGINT NOT NULL REFERENCES bots (id),
    orientation BIGINT NOT NULL CHECK (orientation BETWEEN 0 AND 3),
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'void')),
    record_path TEXT,
    started_at BIGINT,
    ended_at BIGINT,
    -- Points of the partnership in seats 0 and 2, and in seats 1 and 3 (done games only).
    points02 BIGINT,
    points13 BIGINT,
    -- Bit s set: the bot in seat s timed out, crashed or moved illegally.
    fault_seats BIGINT NOT NULL DEFAULT 0,
    void_reason TEXT,
    UNIQUE (deal_id, table_no)
);

CREATE INDEX games_by_status ON games (status);
-- Finds the games of a foursome (pairing's split counts) without reading every game.
CREATE INDEX games_by_seat0 ON games (seat0);

-- Per-bot counters kept in step with games (same transaction as each change of a game's
-- status), so pairing reads twenty rows rather than every game ever played.
CREATE TABLE bot_stats (
    bot_id BIGINT PRIMARY KEY REFERENCES bots (id),
    running BIGINT NOT NULL DEFAULT 0,
    games_done BIGINT NOT NULL DEFAULT 0,
    games_faulted BIGINT NOT NULL DEFAULT 0,
    -- Finished games since its last fault.
    clean_since_fault BIGINT NOT NULL DEFAULT 0,
    last_played BIGINT,
    -- The UTC day (seconds / 86400) of its last start, and how many games it started that day.
    day BIGINT NOT NULL DEFAULT 0,
    started_that_day BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE comparisons (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deal_id BIGINT NOT NULL REFERENCES deals (id),
    side BIGINT NOT NULL CHECK (side IN (0, 1)),
    table_a BIGINT NOT NULL,
    table_b BIGINT NOT NULL,
    team_a1 BIGINT NOT NULL REFERENCES bots (id),
    team_a2 BIGINT NOT NULL REFERENCES bots (id),
    team_b1 BIGINT NOT NULL REFERENCES bots (id),
    team_b2 BIGINT NOT NULL REFERENCES bots (id),
    -- The partnerships teams A and B played against, at their own tables.
    opp_a1 BIGINT NOT NULL REFERENCES bots (id),
    opp_a2 BIGINT NOT NULL REFERENCES bots (id),
    opp_b1 BIGINT NOT NULL REFERENCES bots (id),
    opp_b2 BIGINT NOT NULL REFERENCES bots (id),
    -- 2: team A did better with the cards, 1: even, 0: team B did better.
    outcome BIGINT NOT NULL CHECK (outcome IN (0, 1, 2)),
    score_diff BIGINT NOT NULL,
    a_faulted BIGINT NOT NULL CHECK (a_faulted IN (0, 1)),
    b_faulted BIGINT NOT NULL CHECK (b_faulted IN (0, 1)),
    -- A deal's comparisons can be inserted only once.
    UNIQUE (deal_id, side, table_a, table_b)
);

CREATE TABLE rating_snapshots (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('live', 'official')),
    taken_at BIGINT NOT NULL,
    -- The last comparison (by id) the snapshot includes; 0 for none.
    upto_comparison BIGINT NOT NULL,
    UNIQUE (kind, upto_comparison)
);

CREATE TABLE ratings (
    snapshot_id BIGINT NOT NULL REFERENCES rating_snapshots (id),
    bot_id BIGINT NOT NULL REFERENCES bots (id),
    -- live: mu and sigma; official: strength, and low/high of the 95% interval.
    value DOUBLE PRECISION NOT NULL,
    spread DOUBLE PRECISION NOT NULL,
    low DOUBLE PRECISION NOT NULL,
    high DOUBLE PRECISION NOT NULL,
    provisional BIGINT NOT NULL CHECK (provisional IN (0, 1)),
    comparisons BIGINT NOT NULL,
    PRIMARY KEY (snapshot_id, bot_id)
);
