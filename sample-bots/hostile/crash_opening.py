#!/usr/bin/env python3
"""Attack: exits with code 3 at its first opening question, without answering.
The referee must record exited ("exit code 3"), penalty replaced, and play on for it.

Usage: crash_opening.py PIDFILE
"""
import os

from hostile_bot import Bot, main


class CrashOpening(Bot):
    def on_opening(self, msg):
        os._exit(3)


main(CrashOpening)
