#!/usr/bin/env python3
"""Attack: accepts the chant, then crashes (an uncaught exception, exit code 1) at its first
discard question. With three accept_chant.py bots at the table the chant is taken in deal 1.
The referee must record exited, penalty replaced, discard the six weakest cards for it.

Usage: crash_discard.py PIDFILE
"""
from hostile_bot import Bot, main


class CrashDiscard(Bot):
    accept = True

    def on_discard(self, msg):
        raise RuntimeError("crash at a discard")


main(CrashDiscard)
