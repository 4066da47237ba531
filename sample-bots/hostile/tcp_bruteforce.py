#!/usr/bin/env python3
"""Attack on the TCP lobby: guesses seat tokens, as fast as the referee answers, to find a
seat's token or to flood the referee's log with refusals.

Usage: tcp_bruteforce.py HOST:PORT --sequential N [--source IP]
       tcp_bruteforce.py HOST:PORT --threads T --seconds S [--source IP]

--sequential N: N guesses one after the other; prints {"waits_ms": [...], "reasons": [...]},
for each guess the time from its hello answer to the referee's bye, and the bye's reason.
--threads T --seconds S: T threads guess for S seconds, each opening its next connection as
soon as the last one ends; prints {"attempts": A, "token": W, "busy": B, "other": O,
"seconds": E}: connections opened, byes for a wrong token, byes for a full lobby, and anything
else (a connection that got no bye).
The referee must delay its refusals of an address that keeps guessing wrong, never take a
guess for a seat, and keep its log to a few counted lines (spec/protocol.md 8.1). Every guess
is a fresh random token. Standard library only.
"""
import argparse
import json
import secrets
import socket
import sys
import threading
import time


def guess(addr, source):
    """One connection: ("token" | "busy" | "other", seconds from the hello answer to the bye)."""
    host, _, port = addr.rpartition(":")
    try:
        sock = socket.create_connection((host, int(port)), timeout=15,
                                        source_address=(source, 0) if source else None)
    except OSError:
        return "other", 0.0, None
    with sock:
        lines = sock.makefile("rb")
        try:
            first = json.loads(lines.readline() or b"null")
            if first and first.get("type") == "bye":
                return "busy", 0.0, first.get("reason")
            if not first or first.get("type") != "hello":
                return "other", 0.0, None
            answer = {"type": "hello", "id": first["id"], "name": "guesser", "version": "1",
                      "token": secrets.token_hex(8)}
            sent = time.monotonic()
            sock.sendall(json.dumps(answer).encode() + b"\n")
            reply = json.loads(lines.readline() or b"null")
            waited = time.monotonic() - sent
        except (OSError, ValueError):
            return "other", 0.0, None
    if reply and reply.get("type") == "bye":
        reason = reply.get("reason") or ""
        return ("busy" if "too many pending" in reason else "token"), waited, reason
    return "other", waited, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("--source")
    ap.add_argument("--sequential", type=int)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    if args.sequential:
        results = [guess(args.addr, args.source) for _ in range(args.sequential)]
        print(json.dumps({"waits_ms": [round(w * 1000) for _, w, _ in results],
                          "reasons": [r for _, _, r in results]}), flush=True)
        return 0
    counts = {"attempts": 0, "token": 0, "busy": 0, "other": 0}
    lock = threading.Lock()
    start = time.monotonic()

    def worker():
        while time.monotonic() - start < args.seconds:
            kind, _, _ = guess(args.addr, args.source)
            with lock:
                counts["attempts"] += 1
                counts[kind] += 1

    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts["seconds"] = round(time.monotonic() - start, 2)
    print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
