#!/usr/bin/env python3
"""Attack: ignores SIGTERM, SIGINT and SIGHUP, plays correctly, and after bye and end of input
stays alive. The referee must not wait for it: after the grace period it kills the process
group with SIGKILL. No fault is recorded (a bot that is killed after bye commits none).

Usage: ignore_sigterm.py PIDFILE
"""
import signal

from hostile_bot import Bot, main


class IgnoreSigterm(Bot):
    def __init__(self):
        super().__init__()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)

    def on_bye(self, msg):
        self.stall()

    def on_eof(self):
        self.stall()


main(IgnoreSigterm)
