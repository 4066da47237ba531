#!/usr/bin/env python3
"""A bot with one protocol mistake, named by MODE, so tests/it/check_bot.rs can show that
`referee check-bot` catches it and says what it expected.

Usage: broken_bot.py MODE

Apart from its mistake it is correct: it answers hello, accepts the chant whenever its vote is
asked (so it gets discard questions), discards its 6 weakest cards, plays the first card of its
hand, never signals, and exits 0 on bye or end of input. Modes:

  accept-always  answers "accept" even when no vote is asked
  discard-five   discards 5 cards instead of 6
  foreign-card   plays a card it does not hold
  strict-fields  exits with status 2 on a field or message type it does not know
  silent         never answers hello (and keeps reading, so only a deadline ends the wait)
  wrong-pledge   takes up the feature "surrender" and answers each offer, reply and announce
                 question with an answer of the next type (an announce to an offer, ...)
"""
import json, sys

MODE = sys.argv[1]
DECK = [r + s for r in "A23456789JCK" for s in "ocsb"]
# Strength level of a card (1 strongest, 19 weakest), for a discard legal under keep-highest.
TOP = {"3o": 1, "3c": 2, "2o": 3, "2c": 4, "9c": 5, "9o": 6, "2b": 7, "2s": 8}
RANK = {"A": 9, "K": 10, "C": 11, "J": 12, "9": 13, "8": 14, "7": 15, "6": 16, "5": 17, "4": 18, "3": 19}
# The fields of every referee message of protocol version 1 (spec/protocol.md section 4.10).
KNOWN = {
    "hello": {"id", "protocol", "features", "time_ms"},
    "game": {"game", "seat", "partner", "players", "rules", "clock"},
    "deal": {"deal", "dealer", "hand"},
    "opening": {"id", "deal", "dealer", "vote", "votes", "hand", "time_ms", "bank_ms"},
    "vote": {"seat", "accept"},
    "chant": {"taken"},
    "discard": {"id", "deal", "hand", "received", "rule", "time_ms", "bank_ms"},
    "play": {"id", "deal", "trick", "leader", "table", "hand", "won", "score", "time_ms", "bank_ms"},
    "played": {"seat", "card", "trick"},
    "trick": {"trick", "leader", "cards", "winner", "next"},
    "deal_over": {"deal", "tricks", "winners", "winner", "points", "mordienne", "counted", "score",
                  "pledge"},
    "offer": {"id", "deal", "hand", "score", "time_ms", "bank_ms"},
    "reply": {"id", "deal", "seat", "hand", "score", "time_ms", "bank_ms"},
    "announce": {"id", "deal", "hand", "score", "time_ms", "bank_ms"},
    "offered": {"seat", "offer"},
    "replied": {"seat", "accept"},
    "announced": {"seat", "announce"},
    "game_over": {"game", "score", "winner", "forfeit"},
    "signal": {"from", "signal"},
    "error": {"id", "fault", "message", "action"},
    "bye": {"reason"},
}


def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        kind, qid = msg["type"], msg.get("id")
        if MODE == "strict-fields":
            unknown = set(msg) - {"type"} - KNOWN.get(kind, set())
            if kind not in KNOWN or unknown:
                print(f"broken_bot: unknown {kind!r} or fields {sorted(unknown)}", file=sys.stderr)
                return 2
        if kind == "hello":
            if MODE != "silent":
                answer = {"type": "hello", "id": qid, "name": "broken-" + MODE, "version": "1"}
                if MODE == "wrong-pledge":
                    answer["features"] = ["surrender"]
                send(answer)
        elif kind in ("offer", "reply", "announce"):
            # Only asked of a bot that took up the feature: this mode's mistake.
            wrong = {"offer": ("announce", "announce"), "reply": ("offer", "offer"),
                     "announce": ("reply", "accept")}[kind]
            send({"type": wrong[0], "id": qid, wrong[1]: False})
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg["vote"] or MODE == "accept-always":
                answer["accept"] = True
            send(answer)
        elif kind == "discard":
            n = 5 if MODE == "discard-five" else 6
            weakest = sorted(msg["hand"], key=lambda c: -(TOP.get(c) or RANK[c[0]]))
            send({"type": "discard", "id": qid, "cards": weakest[:n]})
        elif kind == "play":
            hand = msg["hand"]
            card = hand[0]
            if MODE == "foreign-card":
                card = next(c for c in DECK if c not in hand)
            send({"type": "play", "id": qid, "card": card})
        elif kind == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
