#!/usr/bin/env python3
"""Attack: terminal control in everything a fault quotes. A correct bot by name, it answers its
plays with, in turn: a line of raw escape sequences (not JSON), a card code of escape sequences,
a signal named with a raw C1 CSI and a line separator, a stale-id line holding a bell and a
title escape, an unknown message type named with a right-to-left override, and invalid UTF-8
around an escape. Each is a fault or an ignored line whose detail and raw text the referee
records and prints; no control character may reach its output (match, replay, replay --seat,
check-bot, logs): everything is shown escaped.

Usage: control_lines.py PIDFILE
"""
import json

from hostile_bot import Bot, main

ESC = "\u001b[2J\u001b[H\u001b]0;owned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007"


class ControlLines(Bot):
    def line(self, obj):
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    def on_play(self, msg):
        n, i, card = self.plays, msg["id"], msg["hand"][0]
        self.plays += 1
        if n == 0:
            self.send_raw(ESC.encode() + b"\r\n")
        elif n == 1:
            self.send_raw(self.line({"type": "play", "id": i, "card": ESC}))
        elif n == 2:
            self.send_raw(self.line({"type": "play", "id": i, "card": card, "signal": "\u009b31m\u2028x"}))
        elif n == 3:
            self.send_raw(self.line({"type": "play", "id": i - 1, "card": "\u0007\u001b]2;t\u0007"}))
            self.send_raw(self.line({"type": "play", "id": i, "card": card}))
        elif n == 4:
            self.send_raw(self.line({"type": "\u202eyalp", "id": i}))
            self.send_raw(self.line({"type": "play", "id": i, "card": card}))
        elif n == 5:
            self.send_raw(b'{"type":"play","id":%d,"card":"\xff\x1b[31m\xfe"}\n' % i)
        else:
            self.send_raw(self.line({"type": "play", "id": i, "card": card}))


main(ControlLines)
