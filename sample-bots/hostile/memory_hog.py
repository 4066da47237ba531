#!/usr/bin/env python3
"""Attack: at its 1st play question allocates (and touches) memory 16 MiB at a time, without
limit. Run with --bot-memory-mib 128: the allocation fails, the uncaught MemoryError ends the
bot. The referee must record exited (replaced) and finish the game; its own memory is untouched.
Without a limit the bot stops at 1 GiB and hangs, so a missing limit fails the test rather than
the machine.

Usage: memory_hog.py PIDFILE
"""
from hostile_bot import Bot, main

CHUNK = 16 << 20


class MemoryHog(Bot):
    def on_play(self, msg):
        hoard = []
        while len(hoard) * CHUNK < (1 << 30):
            hoard.append(bytearray(CHUNK))  # zero-filled: every page is touched
        self.stall()


main(MemoryHog)
