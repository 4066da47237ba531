#!/usr/bin/env python3
"""Attack: answers its second play question 30 ms after time_ms + bank_ms.
The referee must time the question out (timeout, fallback, bank 0) and, when the late answer
arrives, ignore it as a stale_id, never taking it for the next question's answer.

Usage: late_beyond_bank.py PIDFILE
"""
import time

from hostile_bot import Bot, main


class LateBeyondBank(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            time.sleep((msg["time_ms"] + msg["bank_ms"]) / 1000 + 0.03)
        super().on_play(msg)


main(LateBeyondBank)
