#!/usr/bin/env python3
"""Attack: answers from beyond the grave. At its 1st play the bot starts a child that leaves its
process group and session (`setsid()`) and keeps the bot's stdout open; the bot answers and exits
with code 0; the moment it is gone, the child writes a correct answer to each of the bot's next
eight play questions (ids are predictable: one more per question), then lingers.
The referee must charge `exited` at the bot's next question, take none of the lines that were
written in advance (the fallback plays the rest of the game for the seat), and kill the child:
no line written for a dead bot is its answer, and nothing it left behind outlives it.

Usage: orphan_answers.py PIDFILE
"""
import json
import os
import sys
import time

from hostile_bot import Bot, linger, main


class OrphanAnswers(Bot):
    def on_play(self, msg):
        parent = os.getpid()
        child = os.fork()
        if child == 0:
            os.setsid()
            # Once the bot is gone (this process is handed to the referee, its subreaper),
            # answer for it.
            while os.getppid() == parent:
                time.sleep(0.001)
            hand = msg["hand"]
            lines = b"".join(
                json.dumps({"type": "play", "id": msg["id"] + k, "card": hand[k]}).encode() + b"\n"
                for k in range(1, len(hand))
            )
            self.out.write(lines)
            self.out.flush()
            linger()
        self.note_pid(child)
        super().on_play(msg)
        sys.exit(0)


main(OrphanAnswers)
