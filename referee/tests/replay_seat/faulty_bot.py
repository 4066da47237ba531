#!/usr/bin/env python3
"""A bot that commits one fault of each kind a seat's replay must reproduce, at fixed moments of
the first game it plays, so tests/it/replay_seat.rs can compare the replayed conversation with
what really crossed the pipe. Standard library only.

Otherwise it plays the simplest legal game: refuse the chant, discard its first six cards, play
its first card. In game 1 (deal.trick of the play question):
  1.2 no answer (a timeout);  1.3 first the late answer to 1.2 (stale id), then a line with an id
  never asked (unknown id), then its answer;  1.5 a card it does not hold (illegal card);
  deal 2 opening: a line that is not JSON (malformed);  2.2 an opening answer to a play question
  (wrong answer);  2.4 a line over the limit (the test runs with --max-line-bytes 4096);
  2.6 a false signal (bad signal, the card stands);  3.1 it exits with status 3.
A restarted bot (game 2 on) plays cleanly, but for one unknown id at its first play.
"""
import json
import sys


def send(obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, separators=(",", ":"))
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main():
    game = 0
    late = None  # the id of the play question left unanswered
    first_play = True
    deck = [r + s for r in "A23456789JCK" for s in "ocsb"]
    for line in sys.stdin:
        m = json.loads(line)
        t = m["type"]
        if t == "hello":
            send({"type": "hello", "id": m["id"], "name": "faulty", "version": "1"})
        elif t == "game":
            game = m["game"]
        elif t == "bye":
            return 0
        elif t == "opening":
            if game == 1 and m["deal"] == 2:
                send("this is not json")
                continue
            answer = {"type": "opening", "id": m["id"]}
            if m["vote"]:
                answer["accept"] = False
            send(answer)
        elif t == "discard":
            send({"type": "discard", "id": m["id"], "cards": m["hand"][:6]})
        elif t == "play":
            at = (m["deal"], m["trick"])
            answer = {"type": "play", "id": m["id"], "card": m["hand"][0]}
            if game != 1:
                if first_play:
                    first_play = False
                    send({"type": "play", "id": m["id"] + 1000, "card": m["hand"][0]})
                send(answer)
            elif at == (1, 2):
                late = m["id"]
            elif at == (1, 3):
                send({"type": "play", "id": late, "card": m["hand"][0]})
                send({"type": "play", "id": m["id"] + 1000, "card": m["hand"][0]})
                send(answer)
            elif at == (1, 5):
                send({"type": "play", "id": m["id"], "card": next(c for c in deck if c not in m["hand"])})
            elif at == (2, 2):
                send({"type": "opening", "id": m["id"]})
            elif at == (2, 4):
                send('{"type":"play","id":%d,"card":"%s","pad":"%s"}' % (m["id"], m["hand"][0], "x" * 5000))
            elif at == (2, 6):
                answer["signals"] = ["monsieur"] if "3o" not in m["hand"] else ["aces:9"]
                send(answer)
            elif at == (3, 1):
                return 3
            else:
                send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
