#!/usr/bin/env python3
"""Attacks on a resumable TCP seat by the holder of its token, for referee/tests/it/resume.rs.

    python3 resume_storm.py ADDR TOKEN MODE

Claims TOKEN's seat listing `resume` and answers its first three questions, then, by MODE:

- `storm`: leaves the fourth question open and resumes over and over, as fast as it can:
  each try connects, answers the hello with the token and `resume`, reads the first message
  after it (`resume`, or a `bye` saying why not), and closes. It stops at the first connection
  the referee does not answer at all, or after 60 tries.
- `flood`: resumes once, answers the question it left open, and then writes 200 MB of valid
  but stale answers as fast as the socket takes them (non-blocking, for at most 5 s, and
  stopping once the socket has taken nothing for a second), then plays on.

It prints one JSON line: for `storm` the first message of each try (`resume`, or the `bye`
reason); for `flood` the bytes the socket took. Standard library only.
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resume_bot import Conn, answer  # noqa: E402


def play_first(conn, n):
    """Answers n questions; returns the next one, left open."""
    answered = 0
    while True:
        msg = conn.recv()
        if msg is None:
            raise SystemExit("the conversation ended early")
        reply = answer(msg)
        if reply is None:
            continue
        if answered == n:
            return msg
        conn.send(reply)
        answered += 1


def storm(addr, token):
    tries = []
    for _ in range(60):
        try:
            conn = Conn(addr)
            conn.sock.settimeout(10)
            conn.hello(token)
            first = conn.recv()
        except (OSError, AssertionError, ValueError):
            break
        conn.close()
        if first is None:
            break
        tries.append("resume" if first["type"] == "resume" else first.get("reason"))
    return {"tries": tries}


def flood(addr, token, conn):
    conn.close()
    conn = Conn(addr)
    conn.hello(token)
    first = conn.recv()
    assert first["type"] == "resume", first
    for _ in range(first["replay"]):
        conn.recv()
    # The question left open, answered: the seat has no question open while it floods, so the
    # referee reads nothing of it until its next question.
    conn.send(answer(conn.recv()))
    # A megabyte a send: fast enough to fill every buffer on the way within a tenth of a second.
    stale = (json.dumps({"type": "play", "id": 1, "card": "Ao"}) + "\n").encode() * 25000
    conn.sock.setblocking(False)
    sent, end, blocked = 0, time.time() + 5, None
    while sent < 200_000_000 and time.time() < end:
        try:
            # Whole lines only: a partial send goes on where it stopped.
            sent += conn.sock.send(stale[sent % len(stale):])
            blocked = None
        except BlockingIOError:
            blocked = blocked or time.time()
            # The referee takes no more: a second of that is the answer.
            if time.time() - blocked > 1:
                break
            time.sleep(0.01)
    conn.sock.setblocking(True)
    conn.sock.settimeout(30)
    # The last line finished, so the stream holds whole lines only.
    conn.sock.sendall(stale[sent % len(stale):])
    # Plays on to the end, so the game is the bot's again.
    while (msg := conn.recv()) is not None:
        reply = answer(msg)
        if reply is not None:
            conn.send(reply)
    return {"sent": sent}


def main(argv):
    addr, token, mode = argv[1], argv[2], argv[3]
    conn = Conn(addr)
    conn.hello(token)
    play_first(conn, 3)
    if mode == "storm":
        report = storm(addr, token)
    else:
        report = flood(addr, token, conn)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
