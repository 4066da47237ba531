#!/usr/bin/env python3
"""Attack: dies by SIGSEGV at its second play question (core dumps disabled first).
The referee must record exited ("killed by SIGSEGV"), penalty replaced (or forfeit).

Usage: crash_play.py PIDFILE
"""
import os
import resource
import signal

from hostile_bot import Bot, main


class CrashPlay(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.kill(os.getpid(), signal.SIGSEGV)
        super().on_play(msg)


main(CrashPlay)
