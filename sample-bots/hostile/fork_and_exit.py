#!/usr/bin/env python3
"""Attack: at its 1st play starts a child that ignores SIGTERM and keeps the bot's pipes open,
and a grandchild whose parent leaves at once (so it is reparented, out of the bot's process
tree but still in its process group); both ignore SIGTERM and linger. Then the bot exits at its
2nd play. The bot, the child and the grandchild write their pids to PIDFILE.
The referee must notice the exit although stdout stays open (exited, replaced) and kill the
whole process group: neither the child nor the grandchild may outlive it.

Usage: fork_and_exit.py PIDFILE
"""
import os
import sys

from hostile_bot import Bot, linger, main


class ForkAndExit(Bot):
    def on_play(self, msg):
        if self.plays == 0:
            ready_r, ready_w = os.pipe()
            child = os.fork()
            if child == 0:
                # The child: starts a middle process that starts the grandchild and leaves at
                # once, so the grandchild is reparented; then lingers, holding the bot's pipes.
                middle = os.fork()
                if middle == 0:
                    grandchild = os.fork()
                    if grandchild == 0:
                        linger()
                    self.note_pid(grandchild)
                    os.write(ready_w, b"!")
                    os._exit(0)
                os.waitpid(middle, 0)
                linger()
            self.note_pid(child)
            os.read(ready_r, 1)  # the grandchild's pid is in the file before the bot goes on
        elif self.plays == 1:
            sys.exit(0)
        super().on_play(msg)


main(ForkAndExit)
