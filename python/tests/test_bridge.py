"""The bot bridge in a real `referee match`: `python -m aluette.bot FILE:act` plays whole games
against the referee's built-in bots without a fault, and every observation and mask it gave the
policy is the one the environment gives the same seat at the same moment, re-derived by
replaying the record on `aluette.Game` with the record's own seed."""
import base64
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import aluette

HERE = Path(__file__).parent
REFEREE = os.environ.get("ALUETTE_REFEREE", str(HERE.parents[1] / "target/debug/referee"))
ACTIONS = {"vote": "accept", "discard": "cards", "play": "card", "offer": "offer",
           "reply": "accept", "announce": "announce"}


def run_match(tmp_path, flags, seed):
    if not os.access(REFEREE, os.X_OK):
        pytest.fail(f"{REFEREE} is missing: run 'cargo build --workspace --bins' first")
    log = tmp_path / "policy.jsonl"
    bot = f"{sys.executable} -m aluette.bot {HERE / 'policies/logged.py'}:act --name py-logged"
    cmd = [REFEREE, "match", "--games", "2", "--seed", str(seed), "--records",
           str(tmp_path / "records"), "--answer-ms", "5000", "--bot", bot,
           "--bot", "builtin:random", "--bot", "builtin:heuristic", "--bot", "builtin:random",
           *flags]
    env = dict(os.environ, ALUETTE_POLICY_LOG=str(log))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return log, sorted((tmp_path / "records").glob("game-*.jsonl"))


def replay(record, entries):
    """Replays one record on aluette.Game, and seat 0's answers through the environment's steps
    with the actions the policy chose, comparing each observation and mask on the way."""
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    header = lines[0]
    rules = {k.replace("-", "_"): v for k, v in header["rules"].items() if k != "seating"}
    game = aluette.Game(header["seed"], header["first_dealer"], **rules)
    compared = 0
    for line in lines[1:]:
        kind = line["type"]
        if kind == "fault":
            assert line["seat"] != 0, line
        if kind == "deal":
            assert [game.hand(s) for s in range(4)] == line["hands"]
        ours = (kind == "signal" and line["from"] == 0) or (kind in ACTIONS and line["seat"] == 0)
        if ours:
            while True:
                entry = next(entries)
                obs = base64.b64decode(entry["obs"])
                mask = base64.b64decode(entry["mask"])
                assert game.observe(0) == obs, f"observation differs before {line}"
                assert game.action_mask(0) == mask, f"mask differs before {line}"
                compared += 1
                game.step(entry["action"])
                if not (48 <= entry["action"] < 96 and not game.events):
                    break
            if kind == "signal":
                (event,) = game.events
                assert event["signal"] == line["signal"]
                assert [s for s in range(4) if event["seen_by"][s]] == line["seen_by"]
        elif kind == "signal":
            event = game.signal(line["from"], line["signal"])
            assert [s for s in range(4) if event["seen_by"][s]] == line["seen_by"]
        elif kind in ACTIONS:
            value = line[ACTIONS[kind]]
            game.apply((kind, value), line["seat"])
        if kind == "footer":
            assert line["status"] == "complete"
            assert game.over and game.score == line["score"]
    return compared


@pytest.mark.parametrize("flags,seed", [
    ([], 7),
    (["--signals", "public", "--surrender", "on", "--discard", "keep-highest"], 11),
    (["--mordienne", "announced", "--target", "3", "--signals", "leaky", "--signal-truth", "free"], 12),
])
def test_a_policy_plays_a_referee_match_through_the_bridge(tmp_path, flags, seed):
    log, records = run_match(tmp_path, flags, seed)
    assert len(records) == 2
    entries = iter([json.loads(x) for x in log.read_text().splitlines()])
    compared = sum(replay(r, entries) for r in records)
    assert next(entries, None) is None, "the policy was asked more than the records show"
    assert compared > 40


def test_a_bad_policy_name_fails_with_one_line():
    done = subprocess.run([sys.executable, "-m", "aluette.bot", "no_such_module_here:act"],
                          capture_output=True, text=True, input="")
    assert done.returncode != 0
    assert "No module named" in done.stderr or "aluette.bot" in done.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_lobby(port):
    """Until the referee's lobby accepts connections (the probe is one refused stranger)."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)


def test_the_bridge_takes_a_tcp_seat(tmp_path):
    """The arena's way in: the referee listens, and the bridge connects with its seat token."""
    port = free_port()
    cmd = [REFEREE, "match", "--games", "1", "--seed", "3", "--records", str(tmp_path / "rec"),
           "--listen", f"127.0.0.1:{port}", "--connect-wait-ms", "60000",
           "--bot", "tcp:seat-zero", "--bot", "builtin:random", "--bot", "builtin:random",
           "--bot", "builtin:random"]
    referee = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_lobby(port)
        env = dict(os.environ, ALUETTE_POLICY_LOG=str(tmp_path / "log.jsonl"))
        bridge = subprocess.run(
            [sys.executable, "-m", "aluette.bot", f"{HERE / 'policies/logged.py'}:act",
             "--connect", f"127.0.0.1:{port}", "--token", "seat-zero"],
            env=env, capture_output=True, text=True, timeout=120)
        out, err = referee.communicate(timeout=120)
    finally:
        referee.kill()
    assert referee.returncode == 0, err
    assert bridge.returncode == 0, bridge.stderr
    (record,) = (tmp_path / "rec").glob("game-*.jsonl")
    assert '"type":"fault"' not in record.read_text()
    entries = iter([json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()])
    assert replay(record, entries) > 20


def test_a_refused_bridge_fails_and_says_why(tmp_path):
    port = free_port()
    cmd = [REFEREE, "match", "--games", "1", "--no-records", "--listen", f"127.0.0.1:{port}",
           "--connect-wait-ms", "20000", "--bot", "tcp:right-token", "--bot", "builtin:random",
           "--bot", "builtin:random", "--bot", "builtin:random"]
    referee = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_lobby(port)
        bridge = subprocess.run(
            [sys.executable, "-m", "aluette.bot", f"{HERE / 'policies/logged.py'}:act",
             "--connect", f"127.0.0.1:{port}", "--token", "wrong-token"],
            capture_output=True, text=True, timeout=60)
    finally:
        referee.kill()
        referee.wait()
    assert bridge.returncode == 1, bridge.stderr
    assert "refused" in bridge.stderr
