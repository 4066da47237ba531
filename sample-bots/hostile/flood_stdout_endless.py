#!/usr/bin/env python3
"""Attack: at its 2nd play question writes well-formed play answers with a stale id as fast as it
can (each padded with whitespace to about 300 bytes), without end (for 10 s at most, then it
stalls), and never answers.
Every line is valid and ignorable, so only the clock can settle the question: the referee must
time it out at time_ms + bank_ms like any silent bot (timeout, fallback; then timeouts with an
empty bank until replaced at the third strike), record at most 20 of the ignored lines, and
keep its memory bounded: the lines it ignores are counted, not kept.

Usage: flood_stdout_endless.py PIDFILE
"""
import time

from hostile_bot import Bot, main

# JSON whitespace. Lines of about 300 bytes cost the referee little more to read than short
# ones, so a referee that kept every line it ignores would fill its memory faster with them.
PAD = b" " * 256


class FloodStdoutEndless(Bot):
    def on_play(self, msg):
        if self.plays == 1:
            qid, card = msg["id"] - 1, msg["hand"][0].encode()
            block = b'{"type":"play","id":%d,"card":"%s"%s}\n' % (qid, card, PAD) * 400
            end = time.time() + 10
            try:
                while time.time() < end:
                    self.send_raw(block)
            except OSError:
                pass
            self.stall()
        super().on_play(msg)


main(FloodStdoutEndless)
