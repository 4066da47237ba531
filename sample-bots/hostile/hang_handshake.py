#!/usr/bin/env python3
"""Attack: reads hello and never answers, reading on and ignoring end of input.
The referee must refuse the handshake after --handshake-ms (handshake_refused, replaced) and
kill it.

Usage: hang_handshake.py PIDFILE
"""
from hostile_bot import Bot, main


class HangHandshake(Bot):
    def on_hello(self, msg):
        self.stall()


main(HangHandshake)
