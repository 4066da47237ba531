#!/usr/bin/env python3
"""Attack: plays a card it does not hold (1st play), a code that is no card ("1o", 2nd play),
and again a card it does not hold (3rd play).
The referee must record illegal_card, malformed, illegal_card with strikes 1, 2, 3: fallback,
fallback, replaced (under --on-fault forfeit: the first fault forfeits the game).

Usage: illegal_card.py PIDFILE
"""
from hostile_bot import DECK, Bot, main


class IllegalCard(Bot):
    def on_play(self, msg):
        self.plays += 1
        hand = msg["hand"]
        card = "1o" if self.plays == 2 else next(c for c in DECK if c not in hand)
        self.send({"type": "play", "id": msg["id"], "card": card})


main(IllegalCard)
