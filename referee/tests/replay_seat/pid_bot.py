#!/usr/bin/env python3
"""Writes its pid to PIDFILE, then becomes CMD (exec keeps the pid): a test of
`referee replay --until` then knows which process the referee started, and can check that it
is gone afterwards.

    python3 pid_bot.py PIDFILE CMD ARGS...
"""
import os
import sys

with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
os.execvp(sys.argv[2], sys.argv[2:])
