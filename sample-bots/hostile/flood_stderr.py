#!/usr/bin/env python3
"""Attack: writes 2 MiB to stderr at every deal (10 MiB in a 5-deal game) and plays correctly.
The referee must keep reading stderr so the bot never blocks, keep at most --stderr-cap bytes
in the log, end the log with one note saying how many bytes it dropped, and record no fault.

Usage: flood_stderr.py PIDFILE
"""
import sys

from hostile_bot import Bot, main

PER_DEAL = 2 << 20


class FloodStderr(Bot):
    def on_deal(self, msg):
        sys.stderr.buffer.write(b"e" * PER_DEAL)
        sys.stderr.buffer.flush()


main(FloodStderr)
