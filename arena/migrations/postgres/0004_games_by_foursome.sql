-- Pairing's split counts read the finished games of one foursome before every deal. Through
-- the index on seat0 alone (or the one on status) that read grew with every game the
-- foursome's smallest id ever played, a house bot's being nearly every game; through all four
-- seats it reads the foursome's own rows (spec/arena.md section 4.2). The new index's first
-- column serves what the seat0 index did.
DROP INDEX games_by_seat0;
CREATE INDEX games_by_foursome ON games (seat0, seat1, seat2, seat3);
