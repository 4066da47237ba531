#!/usr/bin/env python3
"""Attack: answers its 2nd play question on behalf of another seat: a valid answer with an extra
`seat` field naming its partner. Answers are decoded strictly (unknown fields refused).
The referee must record malformed (fallback, strike 1) and play the fallback card.

Usage: other_seat.py PIDFILE
"""
from hostile_bot import Bot, main


class OtherSeat(Bot):
    def on_play(self, msg):
        self.plays += 1
        answer = {"type": "play", "id": msg["id"], "card": msg["hand"][0]}
        if self.plays == 2:
            answer["seat"] = (self.seat + 2) % 4
        self.send(answer)


main(OtherSeat)
