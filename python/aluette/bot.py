"""Enter a Python policy in a referee match: ``python -m aluette.bot my_policy:act``.

The policy is any function that takes the observation a seat gets in ``aluette.env``
(``{"observation": float32[OBS_LEN], "action_mask": int8[N_ACTIONS]}``) and returns one legal
action index, so a policy trained in the environment plays unchanged. The bridge speaks the
referee's line protocol (spec/protocol.md) on stdin and stdout, or over TCP with ``--connect
HOST:PORT --token T`` (the arena's lobby); the engine in the wheel decodes each line, keeps what
the seat was shown, builds the observation and the mask, and writes the answer. Signals and
discard picks are sub-steps here as in the environment: the policy is asked again until its
answer is complete. Diagnostics go to stderr.
"""
import argparse
import importlib
import importlib.util
import os
import socket
import sys

import numpy as np

from . import _core


def load(spec):
    """The function named by ``module:function`` or ``path/to/file.py:function``."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise SystemExit(f"aluette.bot: {spec!r} is not MODULE:FUNCTION")
    if target.endswith(".py") or os.sep in target:
        loader = importlib.util.spec_from_file_location("aluette_policy", target)
        if loader is None:
            raise SystemExit(f"aluette.bot: cannot load {target}")
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    else:
        sys.path.insert(0, os.getcwd())
        module = importlib.import_module(target)
    try:
        return getattr(module, name)
    except AttributeError:
        raise SystemExit(f"aluette.bot: {target} has no function {name!r}") from None


def play(policy, inp, out, name="py-policy", token=None):
    """Plays every game of the connection; returns the exit status."""
    bot = _core.SeatBot(name, token)
    # A bye before the first game means the referee refused this bot (over TCP: a wrong token,
    # a seat already taken, a full lobby): that is a failure, said on stderr.
    seated = False
    for raw in inp:
        seated = seated or raw.startswith(b'{"type":"game"')
        if raw.startswith(b'{"type":"error"'):
            print(f"aluette.bot: the referee says: {raw.decode(errors='replace').strip()}",
                  file=sys.stderr)
        try:
            fed = bot.feed(raw)
        except ValueError as e:
            print(f"aluette.bot: ignoring a line: {e}", file=sys.stderr)
            continue
        if fed is None:
            continue
        what, answer = fed
        if what == "bye":
            if not seated:
                print(f"aluette.bot: refused before the first game: {raw.decode(errors='replace').strip()}",
                      file=sys.stderr)
            return 0 if seated else 1
        while answer is None:
            obs = {
                "observation": np.frombuffer(bot.observe(), dtype=np.float32).copy(),
                "action_mask": np.frombuffer(bot.action_mask(), dtype=np.int8).copy(),
            }
            answer = bot.act(legal_or_first(policy(obs), obs["action_mask"]))
        out.write(answer)
        out.flush()
    return 0


def legal_or_first(action, mask):
    """The policy's action, or, when the mask refuses it, the first legal action (said on
    stderr): a policy's mistake costs one decision, not the game."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        a = -1
    if 0 <= a < len(mask) and mask[a]:
        return a
    first = int(np.flatnonzero(mask)[0])
    print(f"aluette.bot: the policy chose {action!r}, which is not legal; playing {first}",
          file=sys.stderr)
    return first


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m aluette.bot", description=__doc__.split("\n")[0])
    ap.add_argument("policy", help="MODULE:FUNCTION or FILE.py:FUNCTION")
    ap.add_argument("--name", default="py-policy", help="the name the referee shows")
    ap.add_argument("--connect", metavar="HOST:PORT", help="connect to a referee's lobby")
    ap.add_argument("--token", help="the seat token, with --connect")
    args = ap.parse_args(argv)
    policy = load(args.policy)
    if args.connect:
        host, _, port = args.connect.rpartition(":")
        sock = socket.create_connection((host, int(port)))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        inp, out = sock.makefile("rb"), sock.makefile("wb")
    else:
        inp, out = sys.stdin.buffer, sys.stdout.buffer
    return play(policy, inp, out, args.name, args.token)


if __name__ == "__main__":
    sys.exit(main())
