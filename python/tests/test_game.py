"""aluette.Game: the engine's API in plain Python values, illegal actions refused with the game
unchanged, and decks from the seed exactly as the referee derives them."""
import random

import pytest

import aluette


def snapshot(game):
    return ([game.view(s) for s in range(4)], game.to_act, game.score, game.legal_actions(),
            [game.hand(s) for s in range(4)])


def test_plays_a_match_in_plain_values():
    game = aluette.Game(seed=5, deals=2)
    assert game.to_act == ("vote", 1)
    assert len(game.hand(1)) == 9 and all(isinstance(c, str) for c in game.hand(1))
    rng = random.Random(5)
    seen_types = set()
    while game.to_act is not None:
        events = game.apply(rng.choice(game.legal_actions()))
        seen_types.update(e["type"] for e in events)
    assert {"vote", "chant", "played", "trick", "deal_over", "game_over"} <= seen_types
    assert game.outcome["deals"] == 2 and game.over
    with pytest.raises(aluette.IllegalAction, match="over"):
        game.apply(("play", "3o"))


def test_illegal_actions_raise_and_change_nothing():
    rng = random.Random(11)
    for seed in range(20):
        game = aluette.Game(seed=seed, deals=1, surrender=True)
        while game.to_act is not None:
            kind, seat = game.to_act
            before = snapshot(game)
            held = set(game.hand(seat))
            wrong = [("play", next(c for c in ["3o", "Kb", "4s", "Ac"] if c not in held)),
                     ("vote", True) if kind != "vote" else ("play", game.hand(seat)[0]),
                     ("discard", game.hand(seat)[:5])]
            for action in wrong:
                with pytest.raises(aluette.IllegalAction):
                    game.apply(action)
                assert snapshot(game) == before
            with pytest.raises(aluette.IllegalAction, match="may not"):
                game.apply(rng.choice(game.legal_actions()), (seat + 1) % 4)
            assert snapshot(game) == before
            if game.rules["signal-truth"] == "truthful" and "3o" not in held:
                with pytest.raises(aluette.IllegalAction, match="false"):
                    game.signal(seat, "monsieur")
                assert snapshot(game) == before
            game.apply(rng.choice(game.legal_actions()))


def test_bad_options_and_values_are_clear_errors():
    with pytest.raises(ValueError, match="unknown rule option"):
        aluette.Game(chants="on")
    with pytest.raises(ValueError, match="discard"):
        aluette.Game(discard="keep-lowest")
    with pytest.raises(ValueError, match="not a card code"):
        aluette.Game(seed=1, chant=False).apply(("play", "Zz"))
    assert aluette.Game(target=7).rules["target"] == 7
    assert "deals" not in aluette.Game(target=7).rules


def test_seeds_follow_the_referee():
    # spec/records.md section 4: derive_seed([42, 1]) and derive_seed([42, 2]).
    assert aluette.game_seed(42, 1) == 12650517297852052884
    assert aluette.game_seed(42, 2) == 6244822474409152576
    # The record excerpt of spec/records.md: game 2 of seed 42, dealer 1, deal 1.
    game = aluette.Game(seed=aluette.game_seed(42, 2), first_dealer=1)
    assert game.hand(0) == ["3o", "Co", "6c", "8c", "5s", "6s", "Cs", "Ab", "5b"]
    assert game.hand(3) == ["7o", "Ko", "Ac", "2s", "7s", "2b", "6b", "Jb", "Cb"]


def test_the_same_seed_gives_the_same_game():
    def play(seed):
        game, rng, log = aluette.Game(seed=seed, signals="public"), random.Random(3), []
        while game.to_act is not None:
            log.append((game.to_act, game.view(game.to_act[1])))
            log.append(game.apply(rng.choice(game.legal_actions())))
        return log
    assert play(9) == play(9)
    assert play(9) != play(10)
