#!/usr/bin/env python3
"""Attack: before each play answer, writes 3000 well-formed play answers carrying stale ids.
The referee must ignore them all (stale_id, penalty ignored, no strike), record at most 20 per
seat and game, count every one in the footer, take the real answer, and stay small.

Usage: flood_stdout.py PIDFILE
"""
from hostile_bot import Bot, main

LINES = 3000


class FloodStdout(Bot):
    def on_play(self, msg):
        qid, card = msg["id"], msg["hand"][0]
        # Ids 1 .. qid-1 were all asked already (hello is 1), so every line is stale.
        flood = b"".join(
            b'{"type":"play","id":%d,"card":"%s"}\n' % (1 + i % (qid - 1), card.encode())
            for i in range(LINES)
        )
        self.send_raw(flood)
        super().on_play(msg)


main(FloodStdout)
