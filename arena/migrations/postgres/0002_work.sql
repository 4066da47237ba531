-- Workers (issue 28, spec/arena.md section 10): the worker tokens, the hosted entrants, the
-- deals queued for workers and the leases that hold them. PostgreSQL's copy of
-- ../sqlite/0002_work.sql, statement for statement: identity ids for INTEGER PRIMARY KEY,
-- BYTEA for BLOB.
-- Lease times are milliseconds since the Unix epoch, because a lease's ttl is seconds or less.

CREATE TABLE workers (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash BYTEA NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

-- Entrants the organiser runs as programs on the workers: never seated in the server itself.
CREATE TABLE hosted_bots (
    bot_id BIGINT PRIMARY KEY REFERENCES bots (id)
);

CREATE TABLE leases (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    worker_id BIGINT NOT NULL REFERENCES workers (id),
    created_ms BIGINT NOT NULL,
    heartbeat_ms BIGINT NOT NULL,
    ttl_ms BIGINT NOT NULL CHECK (ttl_ms >= 1),
    -- open: held; done: every game of it ended; expired: its heartbeat came too late, its
    -- unfinished games are void.
    state TEXT NOT NULL CHECK (state IN ('open', 'done', 'expired'))
);

CREATE INDEX leases_by_state ON leases (state);

-- A deal whose tables workers play: queued while lease_id is NULL, then held by that lease.
CREATE TABLE work (
    deal_id BIGINT PRIMARY KEY REFERENCES deals (id),
    queued_ms BIGINT NOT NULL,
    lease_id BIGINT REFERENCES leases (id)
);

CREATE INDEX work_by_lease ON work (lease_id);
