#!/usr/bin/env python3
"""Attack: at its 1st play starts a child that leaves the bot's process group and session
(`setsid()`), starts a grandchild in its new session, and lingers with it; both ignore SIGTERM
and drop the parent-death signal. The bot itself plays on correctly to the end. The bot, the
child and the grandchild write their pids to PIDFILE.
Killing the bot's process group cannot reach them. The referee, their subreaper, inherits the
child when the bot ends and must kill it and its group: nothing may outlive the referee.

Usage: setsid_child.py PIDFILE
"""
import os

from hostile_bot import Bot, linger, main


class SetsidChild(Bot):
    def on_play(self, msg):
        if self.plays == 0:
            ready_r, ready_w = os.pipe()
            child = os.fork()
            if child == 0:
                os.setsid()
                grandchild = os.fork()
                if grandchild == 0:
                    linger()
                self.note_pid(grandchild)
                os.write(ready_w, b"!")
                linger()
            self.note_pid(child)
            os.read(ready_r, 1)  # both pids are in the file before the bot goes on
        super().on_play(msg)


main(SetsidChild)
