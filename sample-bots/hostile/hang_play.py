#!/usr/bin/env python3
"""Attack: from its first play question on never answers, but keeps reading its input (so the
referee's writes never block) and ignores end of input.
The referee must time it out (answer_ms + bank_ms, then answer_ms with an empty bank): timeout,
timeout, then replaced at the third strike (or forfeit); then kill it.

Usage: hang_play.py PIDFILE
"""
from hostile_bot import Bot, main


class HangPlay(Bot):
    def on_play(self, msg):
        self.stall()


main(HangPlay)
