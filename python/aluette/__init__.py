"""The Aluette rules engine in Python.

``aluette.Game`` is the engine itself (the referee's rules crate, compiled); ``aluette.env``
holds the PettingZoo AEC environment and the batched interface; ``python -m aluette.bot
module:function`` enters a policy in a referee match. spec/python.md documents all of it.
"""
from ._core import (  # noqa: F401  (the package's API)
    LAYOUT,
    N_ACTIONS,
    OBS_LEN,
    SIGNALS,
    Batch,
    Game,
    IllegalAction,
    SeatBot,
    derive_seed,
)

__all__ = ["Game", "Batch", "SeatBot", "IllegalAction", "LAYOUT", "OBS_LEN", "N_ACTIONS",
           "SIGNALS", "derive_seed", "game_seed"]


def game_seed(match_seed, game):
    """The seed of game ``game`` of ``referee match --seed match_seed`` (spec/records.md 4)."""
    return derive_seed([match_seed, game])
