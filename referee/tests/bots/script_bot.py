#!/usr/bin/env python3
"""A correct Aluette bot that plays the cards it is given, in order; used by tests/schema.rs to
play a deal whose nine tricks are all spoiled (a redeal under all-spoiled=redeal), which no
bot that only sees its own hand plays but by rare chance.

Usage: script_bot.py CARD...

Each play question is answered with the next card of the script while that card is in the
hand, and with the first card of the hand once the script is spent (or off). It refuses the
chant, discards the first 6 cards and sends no signals.
"""
import json
import sys


def main():
    script = list(sys.argv[1:])

    def send(answer):
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        msg = json.loads(line)
        kind, qid = msg["type"], msg.get("id")
        if kind == "hello":
            send({"type": "hello", "id": qid, "name": "script", "version": "1"})
        elif kind == "bye":
            return 0
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg["vote"]:
                answer["accept"] = False
            send(answer)
        elif kind == "discard":
            send({"type": "discard", "id": qid, "cards": msg["hand"][:6]})
        elif kind == "play":
            hand = msg["hand"]
            card = script.pop(0) if script and script[0] in hand else hand[0]
            send({"type": "play", "id": qid, "card": card})
    return 0


if __name__ == "__main__":
    sys.exit(main())
