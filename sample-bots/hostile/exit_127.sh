#!/bin/sh
# Attack: the bot exits at once with code 127 (what a shell wrapper does when the real program is
# missing), before reading hello. The referee must record handshake_refused (no valid hello
# answer; the detail names exit code 127), replace the bot and finish the game.
# Usage: sh exit_127.sh PIDFILE
echo $$ >> "$1"
exit 127
