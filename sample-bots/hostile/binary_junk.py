#!/usr/bin/env python3
"""Attack: answers its 2nd play question with a line of binary junk (every byte value but the
newline, NUL and control bytes included) and its 4th with JSON holding invalid UTF-8.
The referee must record two malformed faults (fallback, strikes 1 and 2), resynchronise at the
next newline, and let the bot play on.

Usage: binary_junk.py PIDFILE
"""
from hostile_bot import Bot, main

JUNK = bytes(b for b in range(256) if b != 0x0A) * 4 + b"\n"


class BinaryJunk(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            self.plays += 1
            self.send_raw(JUNK)
        elif self.plays == 3:
            self.plays += 1
            self.send_raw(b'{"type":"play","id":%d,"card":"\xff\xfe"}\n' % msg["id"])
        else:
            super().on_play(msg)


main(BinaryJunk)
