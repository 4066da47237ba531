#!/usr/bin/env python3
"""Attack: sends every play answer twice. Each copy is read with the next question.
The referee must ignore every copy (stale_id, no strike, at most 20 recorded) and never take a
copy for the answer to a later question: the game goes on normally.

Usage: answer_twice.py PIDFILE
"""
from hostile_bot import Bot, main


class AnswerTwice(Bot):
    def on_play(self, msg):
        self.plays += 1
        line = b'{"type":"play","id":%d,"card":"%s"}\n' % (msg["id"], msg["hand"][0].encode())
        self.send_raw(line + line)


main(AnswerTwice)
