#!/usr/bin/env python3
"""A minimal Aluette bot that takes up the feature "surrender" and answers the rounds before the
first lead by the deal number, so a short match meets every outcome of spec/rules.md section 12:
used by tests/it/surrender.rs.

Usage: pledger.py

Correct play: refuses the chant, discards its 6 first cards, plays the first card of its hand,
sends no signals. In deal d: when d % 3 == 1 every seat offers to surrender and every reply
accepts; when d % 3 == 2 every seat offers and every reply refuses (a committed mordienne);
when d % 3 == 0 nobody offers, and every seat announces a mordienne when asked.
"""
import json, sys


def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        kind, qid = msg["type"], msg.get("id")
        if kind == "hello":
            send({"type": "hello", "id": qid, "name": "pledger", "version": "1",
                  "features": ["surrender"]})
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg["vote"]:
                answer["accept"] = False
            send(answer)
        elif kind == "discard":
            send({"type": "discard", "id": qid, "cards": msg["hand"][:6]})
        elif kind == "play":
            send({"type": "play", "id": qid, "card": msg["hand"][0]})
        elif kind == "offer":
            send({"type": "offer", "id": qid, "offer": msg["deal"] % 3 != 0})
        elif kind == "reply":
            send({"type": "reply", "id": qid, "accept": msg["deal"] % 3 == 1})
        elif kind == "announce":
            send({"type": "announce", "id": qid, "announce": True})
        elif kind == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
