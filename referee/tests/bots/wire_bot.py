#!/usr/bin/env python3
"""A minimal Aluette bot that tests the wire at its edges; used by tests/it/wire.rs.

Usage: wire_bot.py MODE PIDFILE

Correct play: answers hello, plays the first card of its hand, votes refuse, discards the first
6 cards, sends no signals. On its 2nd play question MODE changes one thing:
  long-answer   a valid answer padded with blanks to 70,000 bytes
  odd-ids       first five answers with ids no question has (-1, -0, the id as a float,
                2^64, 0), then the real answer
  close-stdin   closes its stdin, answers, then answers the next three ids in advance, and
                stays alive with its stdout open
  non-utf8      an answer with a byte that is not UTF-8 inside a signal

It appends its pid to PIDFILE and clears the parent-death signal the referee sets, so only the
referee's own kill ends it: a process the referee forgets then shows up in the test.
"""
import json, os, sys, time

import testbot

MODE, PIDFILE = sys.argv[1], sys.argv[2]


def send_bytes(data):
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def send(obj):
    send_bytes(json.dumps(obj, separators=(",", ":")).encode())


def main():
    testbot.note_pid(PIDFILE, os.getpid())
    testbot.outlive_the_referee()
    plays = 0
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        kind, qid = msg["type"], msg.get("id")
        if kind == "hello":
            send({"type": "hello", "id": qid, "name": "wire-" + MODE, "version": "1"})
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg["vote"]:
                answer["accept"] = False
            send(answer)
        elif kind == "discard":
            send({"type": "discard", "id": qid, "cards": msg["hand"][:6]})
        elif kind == "play":
            plays += 1
            card = msg["hand"][0]
            answer = b'{"type":"play","id":%d,"card":"%s"' % (qid, card.encode())
            if plays != 2:
                send_bytes(answer + b"}")
            elif MODE == "long-answer":
                send_bytes(answer + b" " * (70_000 - len(answer) - 1) + b"}")
            elif MODE == "odd-ids":
                for odd in [b"-1", b"-0", b"%d.0" % qid, b"18446744073709551616", b"0"]:
                    send_bytes(b'{"type":"play","id":%s,"card":"%s"}' % (odd, card.encode()))
                send_bytes(answer + b"}")
            elif MODE == "close-stdin":
                os.close(0)
                send_bytes(answer + b"}")
                for ahead in range(1, 4):
                    send_bytes(b'{"type":"play","id":%d,"card":"%s"}' % (qid + ahead, card.encode()))
                time.sleep(30)
                return 0
            elif MODE == "non-utf8":
                send_bytes(answer + b',"signals":["ma\xffdame"]}')
        elif kind == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
