#!/usr/bin/env python3
"""Attack (legal): answers its second play question 30 ms after time_ms, well within its bank.
The referee must accept the answer with no fault and take the overrun from the bank.

Usage: late_within_bank.py PIDFILE
"""
import time

from hostile_bot import Bot, main


class LateWithinBank(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            time.sleep(msg["time_ms"] / 1000 + 0.03)
        super().on_play(msg)


main(LateWithinBank)
