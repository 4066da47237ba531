#!/usr/bin/env python3
"""Attack: answers its 2nd play question with the id of the question before (a stale id), and
nothing else. The referee must ignore the line (stale_id, no strike), keep the question open,
and time it out (timeout, fallback, strike 1); the bot then plays on.

Usage: stale_id.py PIDFILE
"""
from hostile_bot import Bot, main


class StaleId(Bot):
    def on_play(self, msg):
        self.plays += 1
        qid = msg["id"] - 1 if self.plays == 2 else msg["id"]
        self.send({"type": "play", "id": qid, "card": msg["hand"][0]})


main(StaleId)
