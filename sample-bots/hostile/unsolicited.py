#!/usr/bin/env python3
"""Attack: after every trick notice (between questions) sends two lines nobody asked for: a hello
answer with the old id 1 and a play answer with an id never asked. They are read when its next
question opens. The referee must ignore both (stale_id, unknown_id, no strike, at most 20
recorded) and take the real answer that follows.

Usage: unsolicited.py PIDFILE
"""
from hostile_bot import Bot, main


class Unsolicited(Bot):
    def on_trick(self, msg):
        self.send({"type": "hello", "id": 1, "name": "me-again", "version": "2"})
        self.send({"type": "play", "id": 10**9, "card": "Ao"})


main(Unsolicited)
