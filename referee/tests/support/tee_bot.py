#!/usr/bin/env python3
"""A transparent wrapper bot: records one seat's whole conversation without changing a byte of it.

    python3 tee_bot.py LOGFILE SEAT -- CMD ARGS...

Runs CMD as a child and copies every line between the referee (our stdin/stdout) and the child,
byte for byte, passing each line on as soon as it is complete. Each line is also appended:

- to LOGFILE as {"seat":SEAT,"dir":"to_bot"|"from_bot","msg":<the line parsed as JSON>} (a line
  that is not JSON is kept as a string without its line ending, so a faulty bot is still logged);
- to LOGFILE.raw as "> " (to_bot) or "< " (from_bot) followed by the exact bytes of the line; a
  last line without its newline gets one, followed by the line "\\ no newline" (as diff does),
  so the raw log still tells exactly which bytes went over the pipe.

It exists so end-to-end tests and spec/transcripts/ can capture what really crossed the pipe,
with any bot in any language, without the referee's help. Standard library only.
"""
import json
import os
import subprocess
import sys
import threading

NO_NEWLINE = b"\\ no newline\n"


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        print("usage: tee_bot.py LOGFILE SEAT -- CMD ARGS...", file=sys.stderr)
        return 2
    log_path, seat, cmd = argv[1], int(argv[2]), argv[4:]

    # Unbuffered appends: every line reaches the files with one write, so a killed wrapper
    # leaves whole lines behind, and a reader of the log sees it as it happens.
    log = open(log_path, "ab", buffering=0)
    raw = open(log_path + ".raw", "ab", buffering=0)
    lock = threading.Lock()

    # bufsize=0: the pipes to the child are raw file objects, so nothing waits in a buffer.
    # The child's stderr is inherited: it goes wherever the referee put ours (its stderr log).
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def record(direction, line):
        try:
            msg = json.loads(line)
        except ValueError:
            msg = line.rstrip(b"\r\n").decode("utf-8", errors="replace")
        entry = {"seat": seat, "dir": direction, "msg": msg}
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
        prefix = b"> " if direction == "to_bot" else b"< "
        body = prefix + line if line.endswith(b"\n") else prefix + line + b"\n" + NO_NEWLINE
        # One lock for both files, so both logs hold the lines in the same order.
        with lock:
            log.write(text)
            raw.write(body)

    def write_all(fd, data):
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]

    done = threading.Event()

    def to_bot():
        # Reading through a buffered reader never delays a line: readline returns as soon as a
        # newline is among the bytes the pipe has delivered; only writing must be unbuffered.
        src = sys.stdin.buffer
        dst = child.stdin.fileno()
        try:
            while True:
                line = src.readline()
                if not line:
                    break
                # Logged before it is passed on, so the log always shows a question before
                # its answer.
                record("to_bot", line)
                write_all(dst, line)
        except OSError:
            pass  # the child is gone (broken pipe): its exit ends everything
        finally:
            try:
                child.stdin.close()  # the child sees end of input, as it would without us
            except OSError:
                pass
            done.set()

    def from_bot():
        src = child.stdout
        try:
            while True:
                line = src.readline()
                if not line:
                    break
                # Logged before it is passed on, so the referee's next message (which may be a
                # reaction to this answer) is logged after it.
                record("from_bot", line)
                write_all(1, line)
        except OSError:
            pass  # the referee closed our stdout
        finally:
            done.set()

    readers = [threading.Thread(target=f, daemon=True) for f in (to_bot, from_bot)]
    for t in readers:
        t.start()
    done.wait()
    try:
        # The child normally exits by itself (after bye, or at end of input); one that does
        # not is not left behind.
        code = child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill()
        code = child.wait()
    # Whatever the child wrote before exiting is still logged and passed on.
    readers[1].join(timeout=2)
    # os._exit: the stdin reader thread may still be blocked in readline, and a normal
    # interpreter shutdown would wait on (or crash over) its lock.
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
