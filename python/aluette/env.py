"""Aluette as a PettingZoo AEC environment, and a batched interface for many games at once.

Agents are ``player_0`` .. ``player_3`` (seats 0..3; team 0 is seats 0 and 2). An episode is one
match. Each step is one decision of the agent selected: a card to play, a yes or no (chant vote,
surrender offer, reply, mordienne announcement), one card picked into a discard (six sub-steps),
or a signal sent with the coming answer (a sub-step: the same agent acts again). The observation
is ``{"observation": float32[OBS_LEN], "action_mask": int8[N_ACTIONS]}``, laid out as ``LAYOUT``
says (spec/python.md). Rewards come at the end of each deal: the points the deal gave, positive
to the scoring team's seats and negative to the others.
"""
import numpy as np

from . import _core

LAYOUT = [(name, offset, shape) for name, offset, shape in _core.LAYOUT]
OBS_LEN = _core.OBS_LEN
N_ACTIONS = _core.N_ACTIONS
SIGNALS = list(_core.SIGNALS)
AGENTS = [f"player_{i}" for i in range(4)]

# The action space's ranges (spec/python.md, "Actions").
PLAY, DISCARD, NO, YES, SIGNAL = 0, 48, 96, 97, 98


def field(observation, name):
    """The field ``name`` of a flat observation, shaped as LAYOUT says (a view, not a copy)."""
    for n, offset, (rows, cols) in LAYOUT:
        if n == name:
            block = observation[..., offset:offset + rows * cols]
            return block.reshape(observation.shape[:-1] + ((cols,) if rows == 1 else (rows, cols)))
    raise KeyError(name)


try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:  # the Game, the batch and the bridge work without PettingZoo
    AECEnv, spaces = object, None


class AluetteEnv(AECEnv):
    """A match of Aluette under the rule options given (the referee's: ``chant="off"``,
    ``discard="keep-highest"``, ``deals=3``, ``signals="public"``, ``surrender=True``, ...)."""

    metadata = {"render_modes": ["human"], "name": "aluette_v0", "is_parallelizable": False}

    def __init__(self, render_mode=None, first_dealer=0, **rules):
        if spaces is None:
            raise ImportError("AluetteEnv needs pettingzoo: pip install 'aluette[env]'")
        super().__init__()
        self.render_mode = render_mode
        self._first_dealer = first_dealer
        self._rules = rules
        _core.Game(0, first_dealer, **rules)  # a bad option fails here, not at reset
        self.possible_agents = list(AGENTS)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (OBS_LEN,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.game = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """A new match. ``seed`` is the game seed: the same seed deals the same decks as
        ``aluette.Game(seed)`` and as the game of that seed in a referee match."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed) % 2**64
        else:
            game_seed = int(self._seeds.integers(0, 2**63))
        self.game = _core.Game(game_seed, self._first_dealer, **self._rules)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.game.asked[0]]

    def observe(self, agent):
        seat = AGENTS.index(agent)
        return {
            "observation": np.frombuffer(self.game.observe(seat), dtype=np.float32).copy(),
            "action_mask": np.frombuffer(self.game.action_mask(seat), dtype=np.int8).copy(),
        }

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self.game.step(int(action))
        self.rewards = {a: float(r) for a, r in zip(AGENTS, rewards)}
        if self.game.over:
            self.terminations = {a: True for a in self.agents}
            outcome = self.game.outcome
            self.infos = {a: {"score": outcome["score"], "winner": outcome["winner"]}
                          for a in self.agents}
        else:
            self.agent_selection = AGENTS[self.game.asked[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None or self.game is None:
            return None
        asked = self.game.asked
        line = f"deal {self.game.deal_number} score {self.game.score} asked {asked}"
        print(line)
        return line

    def close(self):
        pass


def env(**kwargs):
    """The environment, as PettingZoo's classic environments are made."""
    return AluetteEnv(**kwargs)


class BatchEnv:
    """``n`` matches stepped together by one call into the engine: no Python loop per game.

    ``observe()`` gives the acting seat's observation, action mask and seat for every game, as
    arrays of shape (n, OBS_LEN), (n, N_ACTIONS) and (n,). ``step(actions)`` takes one action per
    game and returns the rewards (n, 4), by absolute seat, and ``done`` (n,): where a match ended,
    its slot holds the next match already (game seed ``derive_seed([seed, slot, episode])``).
    """

    def __init__(self, n, seed=0, first_dealer=0, **rules):
        self.n = n
        self._batch = _core.Batch(n, seed, first_dealer, **rules)

    def observe(self):
        obs = np.frombuffer(self._batch.observe(), dtype=np.float32).reshape(self.n, OBS_LEN)
        masks = np.frombuffer(self._batch.masks(), dtype=np.int8).reshape(self.n, N_ACTIONS)
        seats = np.frombuffer(self._batch.to_act(), dtype=np.uint8)
        return obs, masks, seats

    def step(self, actions):
        actions = np.ascontiguousarray(actions, dtype="<i8")
        rewards, done = self._batch.step(actions.tobytes())
        return (np.frombuffer(rewards, dtype=np.float32).reshape(self.n, 4),
                np.frombuffer(done, dtype=np.uint8).astype(bool))


def random_actions(masks, rng):
    """One uniformly random legal action per row of ``masks``, without a Python loop."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)
