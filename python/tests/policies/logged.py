"""A test policy for the bot bridge: the lowest legal action that is not a signal, or, on every
third question of a seat whose rules let it, a signal first. Every call (observation, mask,
action) is appended to the file named by ALUETTE_POLICY_LOG, so the test can hold the bridge's
observations to the environment's."""
import base64
import json
import os

import numpy as np

from aluette.env import field

calls = 0


def act(obs):
    global calls
    calls += 1
    mask = obs["action_mask"]
    signals = np.flatnonzero(mask[98:])
    fresh = not field(obs["observation"], "signals_sent").any()
    if calls % 3 == 0 and len(signals) and fresh:
        action = 98 + int(signals[-1])
    else:
        action = int(np.flatnonzero(mask[:98])[0])
    with open(os.environ["ALUETTE_POLICY_LOG"], "a") as log:
        log.write(json.dumps({
            "obs": base64.b64encode(obs["observation"].tobytes()).decode(),
            "mask": base64.b64encode(mask.tobytes()).decode(),
            "action": action,
        }) + "\n")
    return action
