-- The scheduler's turns (spec/arena.md section 8.4): a server that wins the scheduler's lock
-- takes the next turn before it voids what its predecessor left in flight, and each write
-- transaction of its store (opening, queueing, ending or voiding games, scoring, leases,
-- boards) first checks that the turn is still its own. A predecessor that lost its lock
-- without noticing yet (a session cut while it stalled) then opens, ends or voids nothing
-- more: its next such transaction fails, and it stops.
CREATE TABLE scheduling (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    turn BIGINT NOT NULL
);

INSERT INTO scheduling (id, turn) VALUES (1, 0);
