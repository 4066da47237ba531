"""Shared helpers of the Python tests: random play through the environment's masks, and an
independent reading of the observation's card fields (by the layout spec/python.md documents,
not by the code that writes them)."""
import numpy as np

from aluette import env as E

# Rule variants the tests sweep: each path of the engine the environment exposes.
VARIANTS = [
    dict(deals=2),
    dict(deals=2, chant="off"),
    dict(deals=2, discard="keep-highest", chant_second="partner"),
    dict(deals=2, signals="public", signal_truth="free"),
    dict(deals=2, signals="leaky", signal_leak=0.5),
    # An announcement plays a match to a target below 10 on to 10; announced-only is always
    # to 10 (spec/rules.md 12).
    dict(target=3, surrender=True, mordienne="announced"),
    dict(target=10, mordienne="announced-only", all_spoiled="redeal"),
]


def random_action(obs, rng):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def cards(block):
    """The card indices set in a 48-wide block."""
    return set(np.flatnonzero(block).tolist())
