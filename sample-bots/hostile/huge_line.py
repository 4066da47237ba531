#!/usr/bin/env python3
"""Attack: at its 2nd play question starts writing a 100 MB line with no newline, 1 MB at a time
(from a thread, so it keeps reading its input), and never answers again.
The referee must not hold the line: line_too_long as soon as the limit is passed (fallback),
then timeouts, replaced at the third strike; its memory stays small and the bot is killed.
It is fine if the bot is killed before it has written everything.

Usage: huge_line.py PIDFILE
"""
import threading

from hostile_bot import Bot, main

CHUNK = b"x" * (1 << 20)


class HugeLine(Bot):
    def write_line(self):
        try:
            for _ in range(100):
                self.send_raw(CHUNK)
        except OSError:
            pass

    def on_play(self, msg):
        if self.plays == 1:
            threading.Thread(target=self.write_line, daemon=True).start()
            self.stall()
        super().on_play(msg)


main(HugeLine)
