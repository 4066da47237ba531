"""Steps per second of the aluette environment, single game and batched, against the random-agents
loop of a PettingZoo classic card environment (texas_holdem_v4, Limit Texas Hold'em on rlcard,
the card environment that installs here) run side by side in the same process.

A step is one decision of one agent. Each figure is the median of three runs of about
`--seconds` each; figures are printed, never asserted (bench/README.md, "The Python wheel").
"""
import argparse
import statistics
import time

import numpy as np


def aec_loop(make_env, seconds, seed):
    """PettingZoo's documented random-agents loop, repeated over episodes; returns steps/s."""
    env = make_env()
    steps, start, episode = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(observation["action_mask"])
                steps += 1
            env.step(action)
    return steps / (time.perf_counter() - start)


def game_loop(rules, seconds, seed):
    """One aluette.Game stepped directly: observation, mask, a random legal action, a step."""
    import aluette
    rng = np.random.default_rng(seed)
    steps, start, episode = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        game = aluette.Game(seed + episode, **rules)
        episode += 1
        while not game.over:
            seat = game.asked[0]
            np.frombuffer(game.observe(seat), dtype=np.float32)
            mask = np.frombuffer(game.action_mask(seat), dtype=np.int8)
            game.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    return steps / (time.perf_counter() - start)


def batch_loop(n, rules, seconds, seed):
    """n games in a BatchEnv: one observe and one step call per step of the whole batch."""
    from aluette.env import BatchEnv, random_actions
    batch, rng = BatchEnv(n, seed=seed, **rules), np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, masks, seats = batch.observe()
        batch.step(random_actions(masks, rng))
        steps += n
    return steps / (time.perf_counter() - start)


def median(run, repeats):
    return statistics.median(run() for _ in range(repeats))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch", type=int, nargs="*", default=[64, 512, 4096])
    args = ap.parse_args()
    from pettingzoo.classic import texas_holdem_v4
    from aluette.env import AluetteEnv
    # Signals off: a random agent would otherwise spend most steps sending signals.
    rules = dict(signals="off")
    rows = []
    holdem = median(lambda: aec_loop(texas_holdem_v4.env, args.seconds, 1), args.repeats)
    rows.append(("pettingzoo texas_holdem_v4, AEC random agents", holdem))
    rows.append(("aluette AluetteEnv, AEC random agents",
                 median(lambda: aec_loop(lambda: AluetteEnv(**rules), args.seconds, 1),
                        args.repeats)))
    rows.append(("aluette Game, one game, observe+mask+step",
                 median(lambda: game_loop(rules, args.seconds, 1), args.repeats)))
    for n in args.batch:
        rows.append((f"aluette BatchEnv, {n} games, observe+mask+step",
                     median(lambda: batch_loop(n, rules, args.seconds, 1), args.repeats)))
    width = max(len(name) for name, _ in rows)
    print(f"{'loop':<{width}}  {'steps/s':>12}  {'x holdem':>9}")
    for name, rate in rows:
        print(f"{name:<{width}}  {rate:>12,.0f}  {rate / holdem:>9.1f}")
    best = max(rate for name, rate in rows if "BatchEnv" in name)
    print(f"batched best / texas_holdem_v4 loop: {best / holdem:.1f}x (target: at least 20x)")


if __name__ == "__main__":
    main()
