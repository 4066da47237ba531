#!/usr/bin/env python3
"""Attack: accepts every chant, then discards wrongly: 5 cards the first time, 5 held cards and
one it does not hold the second, 5 cards and one of them twice the third.
With three accept_chant.py bots the chant is taken every deal; seat 1 discards in deals 1, 2, 5.
The referee must record wrong_discard three times (fallback, fallback, replaced) and discard the
six weakest cards for the bot each time.

Usage: wrong_discard.py PIDFILE
"""
from hostile_bot import DECK, Bot, main


class WrongDiscard(Bot):
    accept = True

    def on_discard(self, msg):
        self.discards += 1
        hand = msg["hand"]
        if self.discards == 1:
            cards = hand[:5]
        elif self.discards == 2:
            cards = hand[:5] + [next(c for c in DECK if c not in hand)]
        else:
            cards = hand[:5] + hand[:1]
        self.send({"type": "discard", "id": msg["id"], "cards": cards})


main(WrongDiscard)
