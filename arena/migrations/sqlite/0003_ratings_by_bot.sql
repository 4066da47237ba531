-- A bot's rating history (spec/arena.md section 9.2) reads its row of every snapshot of a
-- board: by bot, rather than through every snapshot's rows.
CREATE INDEX ratings_by_bot ON ratings (bot_id);
