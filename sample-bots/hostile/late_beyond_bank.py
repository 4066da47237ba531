#!/usr/bin/env python3
"""Attack: answers its second play question half of time_ms after time_ms + bank_ms.
The referee must time the question out (timeout, fallback, bank 0) and, when the late answer
arrives, ignore it as a stale_id, never taking it for the next question's answer. Half of
time_ms each way: later by more than the referee may be kept from looking at its deadline on a
busy machine, yet early enough to answer the next question, asked at the timeout with no bank,
in its time_ms.

Usage: late_beyond_bank.py PIDFILE
"""
import time

from hostile_bot import Bot, main


class LateBeyondBank(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            time.sleep((msg["time_ms"] * 1.5 + msg["bank_ms"]) / 1000)
        super().on_play(msg)


main(LateBeyondBank)
