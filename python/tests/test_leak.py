"""No observation of a seat holds a card the seat may not know.

Over many random matches, every seat's observation after every step is read field by field (by
the layout of spec/python.md) and held to an account kept here, independently of the code that
builds observations: from the referee's view of the events (every hand, talon share and discard,
private ones included), what each seat was dealt, received, discarded and saw played. Cards held
by another seat and not yet played, talon cards the seat did not receive, and other seats'
discards must appear nowhere; the seat's own fields must be exactly its own cards. Signals are
held to who may see them, recomputed here from the rules (and, for leaky signals, from the
game seed's stream, reimplemented below)."""
import numpy as np
import pytest

import aluette
from aluette import env as E
from conftest import VARIANTS, cards

CODES = [r + s for s in "ocsb" for r in "A23456789JCK"]
M64 = 2**64 - 1


def splitmix(state):
    """SplitMix64's next state and output (spec/rules.md section 4.2), written afresh."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def derive_seed(parts):
    acc = 0x6A09E667F3BCC909
    for p in parts:
        _, acc = splitmix(acc ^ p)
    return acc


class Account:
    """What every seat may know, kept from the full event stream."""

    def __init__(self, game, rules):
        self.rules = rules
        self.leak_state = derive_seed([game.seed, 0x5349474E])
        self.ppm = round(rules.get("signal_leak", 0.25) * 1_000_000)
        self.new_deal()

    def new_deal(self):
        self.dealt = [set() for _ in range(4)]
        self.received = [set() for _ in range(4)]
        self.discarded = [set() for _ in range(4)]
        self.played = [set() for _ in range(4)]
        self.trick = [set() for _ in range(4)]
        self.signals = np.zeros((4, 4, len(E.SIGNALS)))  # viewer, sender, signal

    def flip(self):
        self.leak_state, out = splitmix(self.leak_state)
        return out < (self.ppm << 64) // 1_000_000

    def sees(self, viewer, sender):
        delivery = self.rules.get("signals", "partner")
        if viewer in (sender, (sender + 2) % 4):
            return True
        return delivery == "public"

    def fold(self, events):
        for e in events:
            kind = e["type"]
            if kind == "deal":
                self.new_deal()
            elif kind == "hand":
                self.dealt[e["seat"]] = {CODES.index(c) for c in e["cards"]}
            elif kind == "received":
                self.received[e["seat"]] = {CODES.index(c) for c in e["cards"]}
            elif kind == "discarded":
                self.discarded[e["seat"]] = {CODES.index(c) for c in e["cards"]}
            elif kind == "played":
                self.played[e["seat"]].add(CODES.index(e["card"]))
                self.trick[e["seat"]].add(CODES.index(e["card"]))
            elif kind == "trick":
                self.trick = [set() for _ in range(4)]
            elif kind == "signal":
                sender, i = e["from"], E.SIGNALS.index(e["signal"])
                seen = [self.sees(v, sender) for v in range(4)]
                if self.rules.get("signals") == "leaky":
                    left, right = self.flip(), self.flip()
                    seen[(sender + 1) % 4], seen[(sender + 3) % 4] = left, right
                assert seen == e["seen_by"], e
                for v in range(4):
                    self.signals[v, sender, i] += seen[v]

    def holding(self, seat):
        return (self.dealt[seat] | self.received[seat]) - self.discarded[seat] - self.played[seat]

    def check(self, game, seat):
        obs = np.frombuffer(game.observe(seat), dtype=np.float32)
        f = lambda name: E.field(obs, name)  # noqa: E731
        rel = [(seat + r) % 4 for r in range(4)]
        all_played = set().union(*self.played)
        may_know = (self.dealt[seat] | self.received[seat] | self.discarded[seat] | all_played)
        talon = set(range(48)) - set().union(*self.dealt)
        forbidden = set()
        for other in range(4):
            if other != seat:
                forbidden |= self.holding(other) | self.discarded[other]
        forbidden |= talon - self.received[seat] - all_played
        forbidden -= all_played
        shown = set()
        for name in ("hand", "received", "discarded", "picked"):
            shown |= cards(f(name))
        for r in range(4):
            shown |= cards(f("played_by")[r]) | cards(f("table")[r])
        assert shown <= may_know, sorted(CODES[c] for c in shown - may_know)
        assert not shown & forbidden, sorted(CODES[c] for c in shown & forbidden)
        assert cards(f("hand")) == self.holding(seat)
        assert cards(f("received")) == self.received[seat]
        assert cards(f("discarded")) == self.discarded[seat]
        assert cards(f("picked")) <= self.holding(seat)
        for r in range(4):
            assert cards(f("played_by")[r]) == self.played[rel[r]]
            assert cards(f("table")[r]) == self.trick[rel[r]]
            assert np.array_equal(f("signals_seen")[r], self.signals[seat, rel[r]])


@pytest.mark.parametrize("rules", VARIANTS)
def test_no_observation_holds_a_card_its_seat_may_not_know(rules):
    rng = np.random.default_rng(2024)
    steps = 0
    for seed in range(15):
        game = aluette.Game(seed, **rules)
        account = Account(game, rules)
        account.fold(game.events)
        while True:
            for seat in range(4):
                account.check(game, seat)
            if game.over:
                break
            seat, _ = game.asked
            mask = np.frombuffer(game.action_mask(seat), dtype=np.int8)
            game.step(int(rng.choice(np.flatnonzero(mask))))
            account.fold(game.events)
            steps += 1
    assert steps > 15 * 30


def test_the_check_catches_a_leak():
    """The account is not vacuous: another seat's hand, written into a seat's observation, fails
    it."""
    game = aluette.Game(1)
    account = Account(game, {})
    account.fold(game.events)
    obs = np.frombuffer(game.observe(0), dtype=np.float32).copy()
    offset = dict((n, o) for n, o, _ in E.LAYOUT)["played_by"] + 48  # seat 1's played cards
    obs[offset + min(account.holding(1))] = 1.0

    class Leaky:
        seed = game.seed

        def observe(self, seat):
            return obs.tobytes()
    with pytest.raises(AssertionError):
        account.check(Leaky(), 0)
