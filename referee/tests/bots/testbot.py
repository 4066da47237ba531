"""What the test bots of this folder share: answers sent as single flushed lines, the referee's
lines read and echoed to stderr (the referee keeps a bot's stderr in the seat's log, where the
tests read what the bot was told), and pids noted for the tests that check no process survives.
Not a bot by itself; standard library only, so a bot starts fast.
"""
import ctypes
import json
import sys


def send(obj):
    """Writes one answer line and flushes it."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def echo(line):
    """Copies a line the referee sent to stderr, marked "< " (a closed stderr stops nothing)."""
    try:
        sys.stderr.write("< " + line)
        sys.stderr.flush()
    except OSError:
        pass


def messages():
    """The referee's messages, in order, each echoed to stderr before it is parsed."""
    for line in sys.stdin:
        echo(line)
        yield json.loads(line)


def note_pid(pidfile, pid):
    """Appends a pid to PIDFILE, where the test looks for processes left alive."""
    with open(pidfile, "a") as f:
        f.write(f"{pid}\n")


def outlive_the_referee():
    """Clears the parent-death signal the referee sets, so that only the referee's own kill
    ends this process: one the referee forgets then shows up in the test."""
    ctypes.CDLL(None).prctl(1, 0)  # PR_SET_PDEATHSIG = 0
