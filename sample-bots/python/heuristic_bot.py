#!/usr/bin/env python3
"""A heuristic Aluette bot, standard library only: a readable starting point for bot authors.

Deterministic (no randomness). It counts the cards it has seen, tells its partner its top cards
and its number of aces (truthfully) when signals are on, and plays by a few simple rules:
take a trick cheaply when it can, leave it to a winning partner, spoil an opponent's trick
when it cannot beat it, and throw its weakest card otherwise.

Talks line-delimited JSON on stdin/stdout, or over TCP with --connect HOST:PORT --token T.
See sample-bots/README.md and spec/protocol.md; "Fast bots" there says why it reads bytes and
skips some lines unread.
"""
import argparse, json, socket, sys

# Strength level of a card code (1 strongest, 19 weakest).
TOP = {"3o": 1, "3c": 2, "2o": 3, "2c": 4, "9c": 5, "9o": 6, "2b": 7, "2s": 8}
RANK = {"A": 9, "K": 10, "C": 11, "J": 12, "9": 13, "8": 14, "7": 15, "6": 16, "5": 17, "4": 18, "3": 19}
# Signal names of the eight top cards.
SIGNAL_OF = {"3o": "monsieur", "3c": "madame", "2o": "borgne", "2c": "vache",
             "9c": "grand-neuf", "9o": "petit-neuf", "2b": "deux-de-chene", "2s": "deux-d-ecrit"}
CARD_OF = {name: card for card, name in SIGNAL_OF.items()}
ALL_CARDS = [r + s for r in "A23456789JCK" for s in "ocsb"]
# The level of every card, computed once: level("3o") == 1. A bound dict lookup is much cheaper
# to call than a Python function, and the bot calls it dozens of times per answer.
LEVEL = {card: TOP.get(card) or RANK[card[0]] for card in ALL_CARDS}
level = LEVEL.__getitem__
STRONGEST = sorted(ALL_CARDS, key=level)

# The referee starts each line with its type, as in {"type":"trick",... so the notices this bot
# does not use can be skipped without parsing them. A line written any other way is parsed in
# full, and ignored if it is one of these.
IGNORED = tuple(b'{"type":"%s"' % kind for kind in
                (b"vote", b"chant", b"trick", b"deal_over", b"game_over",
                 b"offered", b"replied", b"announced"))
DECODE = json.JSONDecoder().raw_decode


def parse(line):
    """json.loads(line) in about half the time: no encoding to guess, no regular expressions."""
    text = line.decode().strip(" \t\r\n")
    msg, end = DECODE(text)
    if end != len(text):
        raise ValueError("text after the JSON object")
    return msg


def weakest_first(cards):
    """Weakest card first; ties broken by code so play is deterministic."""
    return sorted(cards, key=lambda c: (-level(c), c))


def strongest_first(cards):
    return sorted(cards, key=lambda c: (level(c), c))


def mordienne_hand(hand):
    """At least three of the four great cards (3o 3c 2o 2c): nobody can beat them once they are
    kept for the end, so the last three tricks are this player's."""
    return sum(1 for c in hand if level(c) <= 4) >= 3


class Bot:
    def __init__(self, name):
        self.name = name
        self.seat, self.partner = 0, 2
        self.signals_on_offer = True  # the referee offered the "signals" feature in hello
        self.signals_on = True
        self.chant_second = "dealer"
        self.new_deal()

    def new_deal(self):
        self.gone = set()          # cards known to be out of play: played or discarded by me
        self.partner_holds = set() # top cards the partner told us about

    # --- the conversation ---------------------------------------------------------------

    def on_game(self, msg):
        self.seat, self.partner = msg["seat"], msg["partner"]
        rules = msg.get("rules", {})
        self.signals_on = self.signals_on_offer and rules.get("signals", "off") != "off"
        self.chant_second = rules.get("chant-second", "dealer")

    def card_signals(self, hand):
        """True signals for this hand: each top card held, the number of aces, or bad-hand."""
        if not self.signals_on:
            return []
        tops = [SIGNAL_OF[c] for c in strongest_first(hand) if c in SIGNAL_OF]
        aces = sum(1 for c in hand if c[0] == "A")
        out = tops + [f"aces:{aces}"]
        if not tops and aces == 0:
            out.append("bad-hand")
        return out

    def on_opening(self, msg):
        answer = {"type": "opening", "id": msg["id"]}
        hand = msg["hand"]
        if msg.get("vote"):
            dealer = msg["dealer"]
            second = dealer if self.chant_second == "dealer" else (dealer + 2) % 4
            receives = self.seat in ((dealer + 1) % 4, second)
            # The two recipients each get six more cards to choose from; everybody else keeps a
            # hand that only looks better while the chant is refused.
            strong = sum(1 for c in hand if level(c) <= 8)
            answer["accept"] = receives or strong <= 1
        signals = self.card_signals(hand)
        if signals:
            answer["signals"] = signals
        return answer

    def on_discard(self, msg):
        hand = msg["hand"]
        # Discarding the 6 weakest is always legal, under free choice and keep-highest alike.
        cards = weakest_first(hand)[:6]
        self.gone.update(cards)
        answer = {"type": "discard", "id": msg["id"], "cards": cards}
        if self.signals_on:
            # Only signals true both before and after the discard: received top cards we keep.
            kept = [c for c in hand if c not in cards]
            news = [SIGNAL_OF[c] for c in msg.get("received", []) if c in SIGNAL_OF and c in kept]
            if news:
                answer["signals"] = news
        return answer

    # --- the rounds before the first lead (feature "surrender", spec/rules.md section 12) ----

    def on_offer(self, msg):
        # Offer with a useless hand (no top card, at most one ace) when the partner has not
        # signalled a top card either: one point to the opponents is cheaper than the likely
        # loss, and if they refuse they must make a mordienne or give us 2.
        hand = msg["hand"]
        tops = sum(1 for c in hand if level(c) <= 8)
        aces = sum(1 for c in hand if c[0] == "A")
        offer = tops == 0 and aces <= 1 and not self.partner_holds
        return {"type": "offer", "id": msg["id"], "offer": offer}

    def on_reply(self, msg):
        # Accept the sure point, unless the hand holds a mordienne (see mordienne_hand).
        return {"type": "reply", "id": msg["id"], "accept": not mordienne_hand(msg["hand"])}

    def on_announce(self, msg):
        return {"type": "announce", "id": msg["id"], "announce": mordienne_hand(msg["hand"])}

    def on_signal(self, msg):
        if msg.get("from") == self.partner and msg.get("signal") in CARD_OF:
            self.partner_holds.add(CARD_OF[msg["signal"]])

    def on_play(self, msg):
        # Card codes and ids are plain ASCII and integers: this answer is written directly.
        return f'{{"type":"play","id":{msg["id"]},"card":"{self.choose(msg)}"}}'

    # --- the play ---------------------------------------------------------------------------

    def choose(self, msg):
        hand = msg["hand"]
        table = msg.get("table", [])
        for t in table:
            self.gone.add(t["card"])
        # The strongest card that an opponent might still hold (the talon's hidden cards included).
        held = set(hand)
        threat = next((level(c) for c in STRONGEST
                       if c not in held and c not in self.gone and c not in self.partner_holds), 99)
        mine = weakest_first(hand)

        if not table:
            best = mine[-1]
            # Lead a card nobody can match or beat; otherwise lead low and let others spend.
            return best if level(best) < threat else mine[0]

        best_level = min(level(t["card"]) for t in table)
        at_best = [t["seat"] for t in table if level(t["card"]) == best_level]
        winner = at_best[0] if len(at_best) == 1 else None  # None: spoiled so far
        last = len(table) == 3
        beats = [c for c in mine if level(c) < best_level]  # cheapest first
        equal = [c for c in mine if level(c) == best_level]
        others = [c for c in mine if level(c) > best_level]

        if winner == self.partner:
            # Leave it to the partner; never match (and so spoil) the partner's card.
            if others:
                return others[0]
            return beats[0] if beats else mine[0]

        if last:
            if beats:
                return beats[0]
            if winner is not None and equal:
                return equal[0]  # spoil the opponent's trick
            return others[0] if others else mine[0]

        safe = [c for c in beats if level(c) < threat]
        if safe:
            return safe[0]
        partner_to_play = len(table) == 1  # seats alternate teams: my partner plays last
        if partner_to_play and any(level(c) < min(best_level, threat) for c in self.partner_holds if c not in self.gone):
            return others[0] if others else mine[0]
        if beats and winner is not None:
            return beats[0]  # make the opponents pay for it
        if winner is not None and equal:
            return equal[0]
        return others[0] if others else mine[0]


def main():
    ap = argparse.ArgumentParser(description="A heuristic Aluette bot.")
    ap.add_argument("--name", default="py-heuristic")
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

    def send(answer):
        """Sends an answer given as a dict or as its JSON text: one write and one flush."""
        if isinstance(answer, dict):
            answer = json.dumps(answer, separators=(",", ":"))
        out.write(answer.encode() + b"\n")
        out.flush()

    bot = Bot(args.name)
    # Over TCP, a bye or the end of the connection before the first game means the referee
    # refused this bot (a wrong token, a seat already taken, a full lobby): say why, and fail.
    seated = not args.connect
    for line in inp:
        if line.startswith(IGNORED):
            continue
        try:
            msg = parse(line)
            kind = msg.get("type")
        except (ValueError, AttributeError):
            print(f"heuristic_bot: bad line {line.decode(errors='replace')!r}", file=sys.stderr)
            continue
        if kind == "hello":
            if msg.get("protocol") != 1:
                print(f"heuristic_bot: unsupported protocol {msg.get('protocol')}", file=sys.stderr)
                return 1
            bot.signals_on_offer = "signals" in msg.get("features", [])
            answer = {"type": "hello", "id": msg["id"], "name": args.name, "version": "1.0",
                      "author": "aluette sample bots"}
            if "surrender" in msg.get("features", []):
                answer["features"] = ["surrender"]
            if args.token is not None:
                answer["token"] = args.token
            send(answer)
        elif kind == "game":
            seated = True
            bot.on_game(msg)
        elif kind == "deal":
            bot.new_deal()
        elif kind == "opening":
            send(bot.on_opening(msg))
        elif kind == "discard":
            send(bot.on_discard(msg))
        elif kind == "play":
            send(bot.on_play(msg))
        elif kind in ("offer", "reply", "announce"):
            send(getattr(bot, "on_" + kind)(msg))
        elif kind == "played":
            bot.gone.add(msg["card"])
        elif kind == "signal":
            bot.on_signal(msg)
        elif kind == "error":
            print(f"heuristic_bot: referee error: {msg}", file=sys.stderr)
        elif kind == "bye":
            if not seated:
                reason = msg.get("reason")
                print(f"heuristic_bot: the referee refused this bot: {reason}", file=sys.stderr)
                return 1
            return 0
        # Everything else (vote, chant, trick, deal_over, game_over, unknown types) is ignored.
    if not seated:
        print("heuristic_bot: the referee closed the connection before the first game",
              file=sys.stderr)
        return 1
    return 0  # EOF


if __name__ == "__main__":
    sys.exit(main())
