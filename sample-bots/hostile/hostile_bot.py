"""Shared skeleton of the hostile bots: a correct, minimal Aluette bot whose hooks each attack
program overrides to misbehave in exactly one way. Not a bot by itself; standard library only.

Correct play: answers hello, votes refuse (or accept when `accept` is set), discards the first 6
cards of its hand, plays the first card of its hand, sends no signals, exits at `bye` or end of
input.

Every bot appends its pid (and its children append theirs) to PIDFILE, its first argument, so a
test can check that no process of it outlives the referee. It clears the parent-death signal the
referee sets on it: only the referee's own kill may end a bot that stalls, so a process the
referee forgets to kill shows up in the test instead of being cleaned up by the kernel.
"""
import ctypes
import json
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
DECK = [r + s for r in "A23456789JCK" for s in "ocsb"]


def clear_parent_death_signal():
    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 0)
    except (OSError, AttributeError):
        pass


def linger():
    """For a forked process of an attack: ignore SIGTERM, drop the parent-death signal, and
    stay alive for a minute, as a careless or hostile bot's helper would."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    clear_parent_death_signal()
    time.sleep(60)
    os._exit(0)


class Bot:
    """Override `on_TYPE(msg)` for any message type; the defaults play correctly."""

    accept = False

    def __init__(self):
        self.pidfile = sys.argv[1]
        self.note_pid(os.getpid())
        clear_parent_death_signal()
        self.name = os.path.basename(sys.argv[0]).rsplit(".", 1)[0]
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.seat = None
        self.openings = self.discards = self.plays = 0

    def note_pid(self, pid):
        with open(self.pidfile, "a") as f:
            f.write(f"{pid}\n")

    def send_raw(self, data):
        self.out.write(data)
        self.out.flush()

    def send(self, obj):
        self.send_raw(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def stall(self, seconds=60):
        """Never answers again: keeps reading (so the referee's writes never block) and ignores
        end of input, so only a kill ends it. Bounded, so a forgotten bot dies eventually."""
        end = time.time() + seconds
        while time.time() < end:
            if not self.inp.readline():
                time.sleep(0.05)
        os._exit(0)

    # The defaults: a correct bot.
    def on_hello(self, msg):
        self.send({"type": "hello", "id": msg["id"], "name": self.name, "version": "1"})

    def on_game(self, msg):
        self.seat = msg["seat"]

    def on_opening(self, msg):
        self.openings += 1
        answer = {"type": "opening", "id": msg["id"]}
        if msg["vote"]:
            answer["accept"] = self.accept
        self.send(answer)

    def on_discard(self, msg):
        self.discards += 1
        self.send({"type": "discard", "id": msg["id"], "cards": msg["hand"][:6]})

    def on_play(self, msg):
        self.plays += 1
        self.send({"type": "play", "id": msg["id"], "card": msg["hand"][0]})

    def on_bye(self, msg):
        sys.exit(0)

    def on_eof(self):
        sys.exit(0)

    def run(self):
        for line in self.inp:
            msg = json.loads(line)
            handler = getattr(self, "on_" + msg["type"], None)
            if handler is not None:
                handler(msg)
        self.on_eof()


def main(cls):
    cls().run()
