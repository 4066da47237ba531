#!/usr/bin/env python3
"""A random Aluette bot: the smallest complete bot, standard library only.

Plays a random card of its hand, votes at random, discards 6 random cards (the 6 weakest under
keep-highest) and never signals. Talks line-delimited JSON on stdin/stdout, or over TCP with
--connect HOST:PORT --token T. See sample-bots/README.md and spec/protocol.md.

It is also written to be fast (see "Fast bots" in sample-bots/README.md): it reads and writes
bytes, skips the notices it does not need without parsing them, and writes each answer in one go.
"""
import argparse, json, random, socket, sys

# Strength level of a card code (1 strongest, 19 weakest).
TOP = {"3o": 1, "3c": 2, "2o": 3, "2c": 4, "9c": 5, "9o": 6, "2b": 7, "2s": 8}
RANK = {"A": 9, "K": 10, "C": 11, "J": 12, "9": 13, "8": 14, "7": 15, "6": 16, "5": 17, "4": 18, "3": 19}

# The referee starts each line with its type, as in {"type":"played",... so the notices this bot
# does not use (about 5 for each question) can be skipped without parsing them. A line written any
# other way is parsed in full, and ignored if it is one of these.
IGNORED = tuple(b'{"type":"%s"' % kind for kind in (b"deal", b"vote", b"chant", b"played", b"trick",
                                                    b"signal", b"deal_over", b"game_over"))
DECODE = json.JSONDecoder().raw_decode


def parse(line):
    """json.loads(line) in about half the time: no encoding to guess, no regular expressions."""
    text = line.decode().strip(" \t\r\n")
    msg, end = DECODE(text)
    if end != len(text):
        raise ValueError("text after the JSON object")
    return msg


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
        inp, out = sock.makefile("rb"), sock.makefile("wb")
    else:
        inp, out = sys.stdin.buffer, sys.stdout.buffer
    rng = random.Random(args.seed)

    def send(text):
        out.write(text.encode() + b"\n")  # one write and one flush per answer
        out.flush()

    # Over TCP, a bye or the end of the connection before the first game means the referee
    # refused this bot (a wrong token, a seat already taken, a full lobby): say why, and fail.
    seated = not args.connect

    for line in inp:
        if line.startswith(IGNORED):
            continue
        try:
            msg = parse(line)
            kind, qid = msg.get("type"), msg.get("id")
        except (ValueError, AttributeError):
            print(f"random_bot: bad line {line.decode(errors='replace')!r}", file=sys.stderr)
            continue
        # Card codes and ids are plain ASCII and integers: the answers are written directly.
        if kind == "hello":
            if msg.get("protocol") != 1:
                print(f"random_bot: unsupported protocol {msg.get('protocol')}", file=sys.stderr)
                return 1
            answer = {"type": "hello", "id": qid, "name": args.name, "version": "1.0"}
            if args.token is not None:
                answer["token"] = args.token
            send(json.dumps(answer, separators=(",", ":")))  # the name may be any text
        elif kind == "game":
            seated = True
            # Reproducible, yet different per game and seat.
            rng.seed(f"{args.seed}:{msg.get('game')}:{msg.get('seat')}")
        elif kind == "opening":
            if msg.get("vote"):
                accept = "true" if rng.random() < 0.5 else "false"
                send(f'{{"type":"opening","id":{qid},"accept":{accept}}}')
            else:
                send(f'{{"type":"opening","id":{qid}}}')
        elif kind == "discard":
            hand = list(msg["hand"])
            if msg.get("rule") == "keep-highest":
                cards = sorted(hand, key=level)[-6:]
            else:
                cards = rng.sample(hand, 6)
            listed = '","'.join(cards)
            send(f'{{"type":"discard","id":{qid},"cards":["{listed}"]}}')
        elif kind == "play":
            send(f'{{"type":"play","id":{qid},"card":"{rng.choice(msg["hand"])}"}}')
        elif kind == "error":
            print(f"random_bot: referee error: {msg}", file=sys.stderr)
        elif kind == "bye":
            if not seated:
                reason = msg.get("reason")
                print(f"random_bot: the referee refused this bot: {reason}", file=sys.stderr)
                return 1
            return 0
    if not seated:
        print("random_bot: the referee closed the connection before the first game",
              file=sys.stderr)
        return 1
    return 0  # EOF


if __name__ == "__main__":
    sys.exit(main())
