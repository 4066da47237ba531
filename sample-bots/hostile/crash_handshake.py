#!/usr/bin/env python3
"""Attack: crashes (an uncaught exception, exit code 1) on reading hello, without answering.
The referee must record handshake_refused (the detail names the exit), replace the bot.

Usage: crash_handshake.py PIDFILE
"""
from hostile_bot import Bot, main


class CrashHandshake(Bot):
    def on_hello(self, msg):
        raise RuntimeError("crash during the handshake")


main(CrashHandshake)
