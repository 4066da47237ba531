#!/usr/bin/env python3
"""Attack: a hello whose name, version or author (FIELD, default name) would take over the
terminal of whoever reads the referee's output: it clears the screen, forges a result line,
rings the bell, sets the window title, writes the clipboard (OSC 52), and holds a NUL, a raw C1
CSI, a line separator and a right-to-left override. The referee must refuse the handshake
(`handshake_refused`, with a reason that names the field) and print none of it.

With FIELD `invisible`, the name is made only of characters that show nothing (zero-width
spaces and joiners, a Hangul filler, a byte order mark, a braille blank): it would pass for an
empty name, or for another bot's name in the standings. The referee must refuse it too.

Usage: control_names.py PIDFILE [name|version|author|invisible]
"""
import sys

from hostile_bot import Bot, main

EVIL = (
    "\u001b[2J\u001b[H\u001b[31mPWNED\u001b[0m\r\nGame 9: fake\u0007"
    "\u001b]0;owned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u0000\u009b31m\u2028\u202e"
)


class ControlNames(Bot):
    def on_hello(self, msg):
        field = sys.argv[2] if len(sys.argv) > 2 else "name"
        answer = {"type": "hello", "id": msg["id"], "name": "evil", "version": "1"}
        if field == "invisible":
            answer["name"] = "\u200b\u200d\u3164\ufeff\u2800"
        else:
            answer[field] = EVIL
        # ensure_ascii=False: the C1 and Unicode controls go out raw, as JSON allows.
        self.send_raw(__import__("json").dumps(answer, ensure_ascii=False).encode() + b"\n")


main(ControlNames)
