"""The PettingZoo environment: PettingZoo's own API and seed tests, the same seed giving the same
game, the action mask held to the engine's own checks, and the batched interface."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import aluette
from aluette import env as E
from conftest import VARIANTS, random_action


@pytest.mark.parametrize("rules", VARIANTS)
def test_pettingzoo_api(rules):
    api_test(E.AluetteEnv(**rules), num_cycles=2000, verbose_progress=False)


def test_pettingzoo_seed_test():
    seed_test(lambda: E.AluetteEnv(deals=2, signals="leaky"), num_cycles=500)


def trajectory(seed, rules, policy_seed):
    env, rng, log = E.AluetteEnv(**rules), np.random.default_rng(policy_seed), []
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else random_action(obs, rng)
        log.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward,
                    action))
        env.step(action)
    return log


@pytest.mark.parametrize("rules", VARIANTS)
def test_the_same_seed_gives_the_same_game(rules):
    assert trajectory(123, rules, 7) == trajectory(123, rules, 7)
    assert trajectory(123, rules, 7) != trajectory(124, rules, 7)


def test_rewards_are_the_deal_points_and_sum_to_zero():
    env = E.AluetteEnv(deals=3)
    env.reset(seed=8)
    rng, total = np.random.default_rng(8), {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else random_action(obs, rng))
    score = env.game.score
    assert total["player_0"] == total["player_2"] == score[0] - score[1]
    assert total["player_1"] == total["player_3"] == score[1] - score[0]


@pytest.mark.parametrize("rules", VARIANTS)
def test_mask_is_the_engine(rules):
    """Every decision of random matches: the mask allows exactly what the engine accepts."""
    rng = np.random.default_rng(5)
    for seed in range(6):
        game = aluette.Game(seed, **rules)
        while not game.over:
            seat, kind = game.asked
            mask = np.frombuffer(game.action_mask(seat), dtype=np.int8)
            legal = game.legal_actions()
            if kind == "play":
                assert set(np.flatnonzero(mask[:48])) == {card_index(c) for _, c in legal}
            elif kind == "discard":
                picked = E.field(np.frombuffer(game.observe(seat), np.float32), "picked")
                if not picked.any():
                    reachable = {card_index(c) for _, cards in legal for c in cards}
                    assert set(np.flatnonzero(mask[48:96])) == reachable
            else:
                assert mask[E.NO] == mask[E.YES] == 1 and not mask[:96].any()
            for i, name in enumerate(E.SIGNALS):
                probe = game.copy()
                try:
                    probe.signal(seat, name)
                    engine = True
                except aluette.IllegalAction:
                    engine = False
                obs = np.frombuffer(game.observe(seat), np.float32)
                sent, left = E.field(obs, "signals_sent"), E.field(obs, "signals_left")[0]
                # The protocol's cap (8 signals an answer) and no signal twice in one answer.
                assert mask[E.SIGNAL + i] == (engine and not sent[i] and left > 0), (name, kind)
            for other in range(4):
                if other != seat:
                    assert not np.frombuffer(game.action_mask(other), np.int8).any()
            action = int(rng.choice(np.flatnonzero(mask)))
            before = game.copy()
            with pytest.raises(aluette.IllegalAction):
                game.step(int(np.flatnonzero(mask == 0)[0]))
            assert game.observe(seat) == before.observe(seat) and game.asked == before.asked
            game.step(action)


CODES = [r + s for s in "ocsb" for r in "A23456789JCK"]


def card_index(code):
    return CODES.index(code)


def test_card_indices_are_the_canonical_order():
    game = aluette.Game(3, chant="off")
    seat, _ = game.asked
    mask = np.frombuffer(game.action_mask(seat), np.int8)
    assert {CODES[i] for i in np.flatnonzero(mask[:48])} == set(game.hand(seat))


def test_batch_steps_many_games_like_single_games():
    n = 16
    batch = E.BatchEnv(n, seed=4, deals=2)
    singles = [aluette.Game(aluette.derive_seed([4, i, 0]), deals=2) for i in range(n)]
    rng = np.random.default_rng(4)
    finished = np.zeros(n, bool)
    for _ in range(300):
        obs, masks, seats = batch.observe()
        for i in np.flatnonzero(~finished):
            seat = singles[i].asked[0]
            assert seats[i] == seat
            assert obs[i].tobytes() == singles[i].observe(seat)
            assert masks[i].tobytes() == singles[i].action_mask(seat)
        actions = E.random_actions(masks, rng)
        assert all(masks[i, a] for i, a in enumerate(actions))
        rewards, done = batch.step(actions)
        assert np.all(rewards.sum(axis=1) == 0)
        for i in np.flatnonzero(~finished):
            assert list(rewards[i]) == singles[i].step(int(actions[i]))
            assert done[i] == singles[i].over
        finished |= done
    assert finished.any()


def test_batch_refuses_an_illegal_action_and_moves_no_game():
    batch = E.BatchEnv(4, seed=1)
    obs, masks, _ = batch.observe()
    actions = E.random_actions(masks, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(masks[2] == 0)[0])
    with pytest.raises(aluette.IllegalAction, match="game 2"):
        batch.step(actions)
    assert np.array_equal(batch.observe()[0], obs)


def test_layout_is_documented_field_by_field():
    names = [name for name, _, _ in E.LAYOUT]
    spec = open(__file__.rsplit("/python/", 1)[0] + "/spec/python.md").read()
    for name in names:
        assert f"`{name}`" in spec, name
    ends = [offset + rows * cols for _, offset, (rows, cols) in E.LAYOUT]
    assert ends[-1] == E.OBS_LEN
    assert all(o == e for (_, o, _), e in zip(E.LAYOUT[1:], ends))
