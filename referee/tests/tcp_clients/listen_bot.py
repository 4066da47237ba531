#!/usr/bin/env python3
"""A bot that listens, for the `tcp://HOST:PORT` seats of referee/tests/it/tcp.rs.

    python3 listen_bot.py CMD ARGS...

Listens on 127.0.0.1 on a free port, prints the port on stdout (one line, flushed), accepts one
connection (the referee's), and runs CMD with the socket as its stdin and stdout: any stdin/stdout
bot becomes a bot that listens, byte for byte. Exits with CMD's status. Standard library only.
"""
import socket
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        print("usage: listen_bot.py CMD ARGS...", file=sys.stderr)
        return 2
    server = socket.create_server(("127.0.0.1", 0))
    # A referee that never comes must not leave this process behind.
    server.settimeout(30)
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    server.close()
    conn.settimeout(None)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # The child gets the socket itself as stdin and stdout: no relay, no buffering in between.
    child = subprocess.Popen(argv[1:], stdin=conn.fileno(), stdout=conn.fileno())
    conn.close()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
