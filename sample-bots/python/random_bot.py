#!/usr/bin/env python3
"""A random Aluette bot: the smallest complete bot, standard library only.

Plays a random card of its hand, votes at random, discards 6 random cards (the 6 weakest under
keep-highest) and never signals. Talks line-delimited JSON on stdin/stdout, or over TCP with
--connect HOST:PORT --token T. See sample-bots/README.md and spec/protocol.md.
"""
import argparse, json, random, socket, sys

# Strength level of a card code (1 strongest, 19 weakest).
TOP = {"3o": 1, "3c": 2, "2o": 3, "2c": 4, "9c": 5, "9o": 6, "2b": 7, "2s": 8}
RANK = {"A": 9, "K": 10, "C": 11, "J": 12, "9": 13, "8": 14, "7": 15, "6": 16, "5": 17, "4": 18, "3": 19}


def level(card):
    return TOP.get(card) or RANK[card[0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default="py-random")
    ap.add_argument("--connect", metavar="HOST:PORT")
    ap.add_argument("--token")
    args = ap.parse_args()
    if args.connect:
        host, _, port = args.connect.rpartition(":")
        sock = socket.create_connection((host, int(port)))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # one small line per answer
        stream = sock.makefile("rw", encoding="utf-8", newline="\n")
        inp = out = stream
    else:
        inp, out = sys.stdin, sys.stdout
    rng = random.Random(args.seed)

    def send(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        out.flush()

    while True:
        line = inp.readline()
        if not line:
            return 0  # EOF
        try:
            msg = json.loads(line)
        except ValueError:
            print(f"random_bot: bad line {line!r}", file=sys.stderr)
            continue
        kind, qid = msg.get("type"), msg.get("id")
        if kind == "hello":
            if msg.get("protocol") != 1:
                print(f"random_bot: unsupported protocol {msg.get('protocol')}", file=sys.stderr)
                return 1
            answer = {"type": "hello", "id": qid, "name": args.name, "version": "1.0"}
            if args.token is not None:
                answer["token"] = args.token
            send(answer)
        elif kind == "game":
            # Reproducible, yet different per game and seat.
            rng.seed(f"{args.seed}:{msg.get('game')}:{msg.get('seat')}")
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg.get("vote"):
                answer["accept"] = rng.random() < 0.5
            send(answer)
        elif kind == "discard":
            hand = list(msg["hand"])
            if msg.get("rule") == "keep-highest":
                cards = sorted(hand, key=level)[-6:]
            else:
                cards = rng.sample(hand, 6)
            send({"type": "discard", "id": qid, "cards": cards})
        elif kind == "play":
            send({"type": "play", "id": qid, "card": rng.choice(msg["hand"])})
        elif kind == "error":
            print(f"random_bot: referee error: {msg}", file=sys.stderr)
        elif kind == "bye":
            return 0


if __name__ == "__main__":
    sys.exit(main())
