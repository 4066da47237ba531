#!/usr/bin/env python3
"""Attack on the TCP lobby: claims a seat whose bot is already connected, by naming that seat's
token in its hello answer (a token that leaked, or a second copy of a bot started by mistake).

Usage: tcp_hijack.py HOST:PORT TOKEN [--source IP] [--wait SECONDS]

Connects (from the local address IP when given), answers hello with TOKEN, then waits up to
SECONDS (default 5) for the referee's next line. Prints one JSON line on stdout and exits 0:
{"outcome": "refused", "reason": R} when the referee said `bye` (R its reason),
{"outcome": "seated", "first": TYPE} when it sent anything else (the seat was taken), or
{"outcome": "silent"} when it said nothing (the seat was taken, its game has not begun).
The referee must refuse it and leave the seat to its bot (spec/protocol.md 8.1). Standard
library only.
"""
import argparse
import json
import socket
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("token")
    ap.add_argument("--source")
    ap.add_argument("--wait", type=float, default=5.0)
    args = ap.parse_args()
    host, _, port = args.addr.rpartition(":")
    source = (args.source, 0) if args.source else None
    sock = socket.create_connection((host, int(port)), timeout=20, source_address=source)
    lines = sock.makefile("rb")
    hello = json.loads(lines.readline())
    answer = {"type": "hello", "id": hello["id"], "name": "hijacker", "version": "1",
              "token": args.token}
    sock.sendall(json.dumps(answer).encode() + b"\n")
    sock.settimeout(args.wait)
    try:
        line = lines.readline()
    except socket.timeout:
        line = None
    if line is None:
        result = {"outcome": "silent"}
    elif not line:
        result = {"outcome": "refused", "reason": None}
    else:
        msg = json.loads(line)
        if msg.get("type") == "bye":
            result = {"outcome": "refused", "reason": msg.get("reason")}
        else:
            result = {"outcome": "seated", "first": msg.get("type")}
    print(json.dumps(result), flush=True)
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
