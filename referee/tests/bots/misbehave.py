#!/usr/bin/env python3
"""A minimal Aluette bot that misbehaves the way MODE says; used by tests/it/faults.rs.

Usage: misbehave.py MODE PIDFILE [CARD...]

Correct play: answers hello, plays the first card of its hand, votes refuse, discards the first
6 cards, sends no signals. MODE changes one thing:
  exit                   sys.exit(3) on its 3rd play question
  sleep                  answers its 2nd play question late (by half its time_ms past time_ms +
                         bank_ms, so either way by more than a busy referee is late to look),
                         then plays on
  garbage                a non-JSON line instead of its 2nd play answer
  long-line              a 10 MB line instead of its 2nd play answer
  illegal-once/-always   a card it does not hold on its 2nd / every play question
  twice                  sends its 1st play answer twice
  close-stdout           closes stdout on its 2nd play question and stays alive
  no-hello               never answers hello and stays alive
  orphan                 starts `sleep 60` on its 1st play, exits on its 2nd
  orphan-holding-stdout  the same, the child keeping the bot's stdin and stdout open
  accept-chant           votes accept
  short-discard          votes accept, discards only 5 cards the first time
  false-signal           signals "monsieur" once without holding 3o
  pledger                takes up the feature "surrender" and answers its rounds by the deal
                         number d, so a short match meets every outcome (tests/surrender.rs):
                         when d % 3 == 1 it offers and accepts, when d % 3 == 2 it offers and
                         refuses, when d % 3 == 0 it does not offer and announces
  offerer                takes up the feature "surrender", offers to surrender in every deal,
                         accepts every offer and never announces: the bot that offering blindly
                         made win against every bot that could not reply (issue 24)
  burn                   spends 30 ms of CPU time (a busy loop) on every play question
  spin                   spends CPU time for ever (a busy loop) on its 2nd play question
  overrun                spends 450 ms of CPU time on its 2nd play question, then answers it
                         (late) and every later question at once (tests/it/cpu_clock.rs)
  nap                    sleeps 100 ms on every play question but its 9th, and 4.4 s on its 8th:
                         wall time, no CPU time (tests/it/cpu_clock.rs)
  script                 plays the CARDs, in order, while the next one is in its hand (so four
                         of them can play a deal as a test planned it: tests/schema.rs)

It appends its pid (and its child's) to PIDFILE and echoes every line it receives to stderr, so
tests can check what the referee killed and what it told the bot. It clears the parent-death
signal the referee sets and its stalling modes ignore end of input, so only the referee's own
kill ends it: a process the referee forgets then shows up in the test.
"""
import os, sys, time

from testbot import echo, messages, send
import testbot

MODE, PIDFILE, SCRIPT = sys.argv[1], sys.argv[2], sys.argv[3:]
DECK = [r + s for r in "A23456789JCK" for s in "ocsb"]


def note_pid(pid):
    testbot.note_pid(PIDFILE, pid)


def stall(seconds=20):
    """Stays alive without answering, logging input, whatever happens to its pipes."""
    end = time.time() + seconds
    while time.time() < end:
        line = sys.stdin.readline()
        if not line:
            time.sleep(0.05)
            continue
        echo(line)


def main():
    note_pid(os.getpid())
    testbot.outlive_the_referee()
    plays = discards = 0
    signalled = False
    for msg in messages():
        kind, qid = msg["type"], msg.get("id")
        if kind == "hello":
            if MODE == "no-hello":
                stall()
                return 0
            answer = {"type": "hello", "id": qid, "name": "misbehave-" + MODE, "version": "1"}
            if MODE in ("pledger", "offerer"):
                answer["features"] = ["surrender"]
            send(answer)
        elif kind == "offer":
            offer = MODE == "offerer" or msg["deal"] % 3 != 0
            send({"type": "offer", "id": qid, "offer": offer})
        elif kind == "reply":
            accept = MODE == "offerer" or msg["deal"] % 3 == 1
            send({"type": "reply", "id": qid, "accept": accept})
        elif kind == "announce":
            send({"type": "announce", "id": qid, "announce": MODE != "offerer"})
        elif kind == "opening":
            answer = {"type": "opening", "id": qid}
            if msg["vote"]:
                answer["accept"] = MODE in ("accept-chant", "short-discard")
            send(answer)
        elif kind == "discard":
            discards += 1
            n = 5 if MODE == "short-discard" and discards == 1 else 6
            send({"type": "discard", "id": qid, "cards": msg["hand"][:n]})
        elif kind == "play":
            plays += 1
            hand = msg["hand"]
            answer = {"type": "play", "id": qid, "card": hand[0]}
            if MODE == "script" and SCRIPT and SCRIPT[0] in hand:
                answer["card"] = SCRIPT.pop(0)
            if MODE == "exit" and plays == 3:
                sys.exit(3)
            if MODE == "burn":
                end = time.process_time() + 0.03
                while time.process_time() < end:
                    pass
            if MODE == "spin" and plays == 2:
                while True:
                    pass
            if MODE == "overrun" and plays == 2:
                end = time.process_time() + 0.45
                while time.process_time() < end:
                    pass
            if MODE == "nap":
                time.sleep({8: 4.4, 9: 0}.get(plays, 0.1))
            if MODE == "sleep" and plays == 2:
                time.sleep((msg["time_ms"] * 1.5 + msg["bank_ms"]) / 1000)
            if MODE == "garbage" and plays == 2:
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            if MODE == "long-line" and plays == 2:
                sys.stdout.write("x" * (10 << 20))
                sys.stdout.flush()
                sys.stdout.write("\n")
                sys.stdout.flush()
                continue
            if MODE == "illegal-always" or (MODE == "illegal-once" and plays == 2):
                answer["card"] = next(c for c in DECK if c not in hand)
            if MODE == "close-stdout" and plays == 2:
                os.close(1)
                stall()
                return 0
            if MODE in ("orphan", "orphan-holding-stdout") and plays == 1:
                # "orphan" detaches the child from the pipes, so the bot's exit shows at once.
                import subprocess  # here only: every import slows the start of every test bot

                quiet = subprocess.DEVNULL if MODE == "orphan" else None
                note_pid(subprocess.Popen(["sleep", "60"], stdin=quiet, stdout=quiet).pid)
            if MODE in ("orphan", "orphan-holding-stdout") and plays == 2:
                sys.exit(0)
            if MODE == "false-signal" and not signalled and "3o" not in hand:
                answer["signals"] = ["monsieur"]
                signalled = True
            send(answer)
            if MODE == "twice" and plays == 1:
                send(answer)
        elif kind == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
