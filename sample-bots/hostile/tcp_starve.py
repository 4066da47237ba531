#!/usr/bin/env python3
"""Attack on the TCP lobby: handshake starvation. Opens COUNT connections (from the local
address IP when given) and never answers a hello, to fill the places of connections waiting for
their handshake and keep the rightful bots out.

Usage: tcp_starve.py HOST:PORT COUNT [--source IP] [--settle SECONDS] [--hold SECONDS]

After opening them all, it watches them for SECONDS (--settle, default 1) and prints one JSON
line on stdout: {"connected": N, "hello": H, "bye": B, "silent": S}, how many got a hello, how
many a bye (or were closed), and how many heard nothing yet. It then holds the open ones,
without a word, until --hold SECONDS (default 60) pass or its stdin closes, and exits 0.
The referee must give this address no more handshakes than --max-pending-per-addr, and a bot
connecting from another address must still get its seat (spec/protocol.md 8.1). Standard
library only.
"""
import argparse
import json
import selectors
import socket
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("count", type=int)
    ap.add_argument("--source")
    ap.add_argument("--settle", type=float, default=1.0)
    ap.add_argument("--hold", type=float, default=60.0)
    args = ap.parse_args()
    host, _, port = args.addr.rpartition(":")
    source = (args.source, 0) if args.source else None
    socks = []
    for _ in range(args.count):
        try:
            socks.append(socket.create_connection((host, int(port)), timeout=10,
                                                  source_address=source))
        except OSError:
            break
    first = {}  # socket -> "hello" or "bye"
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + args.settle
    while len(first) < len(socks) and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if s not in first:
                first[s] = "hello" if data.startswith(b'{"type":"hello"') else "bye"
            if not data:
                sel.unregister(s)
    kinds = list(first.values())
    print(json.dumps({"connected": len(socks), "hello": kinds.count("hello"),
                      "bye": kinds.count("bye"), "silent": len(socks) - len(kinds)}), flush=True)
    # Hold the connections, saying nothing, until told to stop.
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait(args.hold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
