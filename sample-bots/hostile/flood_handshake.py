#!/usr/bin/env python3
"""Attack: answers hello with an endless stream of well-formed answers carrying an id that was
never asked (each padded with whitespace to about 300 bytes; for 10 s at most, then it stalls),
never the hello answer itself.
The referee must refuse the handshake when --handshake-ms runs out (handshake_refused,
replaced), however fast the lines come, and keep its memory bounded.

Usage: flood_handshake.py PIDFILE
"""
import time

from hostile_bot import Bot, main

# JSON whitespace. Lines of about 300 bytes cost the referee little more to read than short
# ones, so a referee that kept every line it ignores would fill its memory faster with them.
PAD = b" " * 256


class FloodHandshake(Bot):
    def on_hello(self, msg):
        block = b'{"type":"play","id":7,"card":"Ao"%s}\n' % PAD * 400
        end = time.time() + 10
        try:
            while time.time() < end:
                self.send_raw(block)
        except OSError:
            pass
        self.stall()


main(FloodHandshake)
