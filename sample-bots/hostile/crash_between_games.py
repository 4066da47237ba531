#!/usr/bin/env python3
"""Attack: plays game 1 correctly, then exits with code 4 on reading its game_over, between two
games. The referee finds out in game 2: the fault (exited) is charged to game 2, penalty
replaced; game 1's record has no fault.

Usage: crash_between_games.py PIDFILE
"""
import sys

from hostile_bot import Bot, main


class CrashBetweenGames(Bot):
    def on_game_over(self, msg):
        sys.exit(4)


main(CrashBetweenGames)
