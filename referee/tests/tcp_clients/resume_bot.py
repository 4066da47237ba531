#!/usr/bin/env python3
"""A TCP bot that lists `resume` and loses its connection mid-game, for referee/tests/it/tcp.rs.

    python3 resume_bot.py ADDR TOKEN DROP_AFTER [PAUSE_S] [keep]

Connects to the referee's lobby at ADDR, claims TOKEN's seat listing `resume`, answers
DROP_AFTER questions (refusing the chant, discarding its first six cards, playing its first
card), then closes the connection with the next question unanswered, waits PAUSE_S seconds
(default 0.2), connects again with the same token and `resume`, and plays on until the referee
ends the conversation. With `keep`, the first connection is not closed but left silent, as a
connection whose network went away looks to the referee; the report then also says whether the
referee closed it, and the reason of the last `bye` it was sent there. It prints one JSON line on stdout: the first message after the second
hello answer, the kinds of the messages it says were sent before, the question it answered
first on the new connection, the question it left open, and the last `bye` reason. Standard library only.
"""
import json
import socket
import sys
import time


class Conn:
    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def recv(self):
        line = self.file.readline()
        return json.loads(line) if line else None

    def send(self, msg):
        self.sock.sendall((json.dumps(msg) + "\n").encode())

    def hello(self, token):
        hello = self.recv()
        assert hello and hello["type"] == "hello", hello
        self.send({"type": "hello", "id": hello["id"], "name": "resumer", "version": "1",
                   "token": token, "features": ["resume"]})
        return hello

    def close(self):
        self.file.close()
        self.sock.close()


def answer(q):
    kind, qid = q["type"], q.get("id")
    if kind == "opening":
        if q["vote"]:
            return {"type": "opening", "id": qid, "accept": False}
        return {"type": "opening", "id": qid}
    if kind == "discard":
        return {"type": "discard", "id": qid, "cards": q["hand"][:6]}
    if kind == "play":
        return {"type": "play", "id": qid, "card": q["hand"][0]}
    return None


def main(argv):
    addr, token, drop_after = argv[1], argv[2], int(argv[3])
    pause = float(argv[4]) if len(argv) > 4 else 0.2
    keep = len(argv) > 5 and argv[5] == "keep"
    conn = Conn(addr)
    hello = conn.hello(token)
    answered, left_open = 0, None
    while left_open is None:
        msg = conn.recv()
        if msg is None:
            print(json.dumps({"error": "the conversation ended before the drop"}), flush=True)
            return 1
        reply = answer(msg)
        if reply is None:
            continue
        if answered == drop_after:
            left_open = msg
        else:
            conn.send(reply)
            answered += 1
    earlier = conn
    if not keep:
        conn.close()
    time.sleep(pause)

    conn = Conn(addr)
    second_hello = conn.hello(token)
    first = conn.recv()
    report = {"offered": hello["features"], "second_hello": second_hello, "first": first,
              "left_open": left_open, "replayed": [], "answered_first": None, "bye": None}
    replay = first["replay"] if first and first["type"] == "resume" else 0
    seen = 0
    while True:
        msg = conn.recv()
        if msg is None:
            break
        seen += 1
        if msg["type"] == "bye":
            report["bye"] = msg["reason"]
        if seen <= replay:
            report["replayed"].append(msg["type"])
            continue
        reply = answer(msg)
        if reply is not None:
            if report["answered_first"] is None:
                report["answered_first"] = msg
            conn.send(reply)
    if keep:
        # Whatever the referee still sent on the first connection, then its end (or a timeout).
        earlier.sock.settimeout(10)
        try:
            while (msg := earlier.recv()) is not None:
                if msg["type"] == "bye":
                    report["earlier_bye"] = msg["reason"]
            report["earlier_closed"] = True
        except (OSError, ValueError):
            report["earlier_closed"] = False
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
