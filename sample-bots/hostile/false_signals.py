#!/usr/bin/env python3
"""Attack: signals wrongly, under the default truthful signals: play 1 signals "monsieur"
without holding 3o; play 2 sends nine true signals (at most 8 are allowed); play 3 sends a true
signal followed by a false one.
The referee must record bad_signal each time: signal_dropped (strikes 1, 2), then replaced at
the third strike; deliver no signal of plays 1 and 2, deliver the true signal of play 3 (it came
before the false one), and let every card stand.

Usage: false_signals.py PIDFILE
"""
from hostile_bot import Bot, main


class FalseSignals(Bot):
    def on_play(self, msg):
        self.plays += 1
        hand = msg["hand"]
        aces = "aces:%d" % sum(c[0] == "A" for c in hand)
        false = "monsieur" if "3o" not in hand else "madame" if "3c" not in hand else "aces:5"
        signals = {1: [false], 2: [aces] * 9, 3: [aces, false]}.get(self.plays, [])
        answer = {"type": "play", "id": msg["id"], "card": hand[0]}
        if signals:
            answer["signals"] = signals
        self.send(answer)


main(FalseSignals)
