#!/usr/bin/env bash
# The yardstick benchmark (not a test): builtin:search against builtin:heuristic (or against
# BOT, any bot command) in a duplicate tournament at the default clock, with the referee's own
# tournament command. Prints the paired deal score, the Elo difference with its 95% interval,
# think times and faults from the standings, then the SPRT (elo0 = 0, elo1 = 50) walked over
# the same games by `referee standings`.
#
#   scripts/search-elo.sh [SETS]      # deal sets, default 400 (each is two games)
#   BOT="python3 my_bot.py" scripts/search-elo.sh 100    # measure your bot against search
#
# Environment: SEED (default 1), CONCURRENCY (tables, default 2), OUT (output folder, default
# target/search-elo), BOT (the opponent, default builtin:heuristic).
#
# The tournament itself runs without an SPRT, so that every deal set is played (an SPRT in the
# config stops it at its decision); the SPRT is then computed from the finished journal, in a
# copy of the folder whose plan names it, by the same code that would have stopped the match.
set -euo pipefail

sets=${1:-400}
seed=${SEED:-1}
concurrency=${CONCURRENCY:-2}
bot=${BOT:-builtin:heuristic}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/target/search-elo}
referee=$root/target/release/referee

cargo build --release --quiet -p aluette-referee --manifest-path "$root/Cargo.toml"
rm -rf "$out" "$out-sprt"
mkdir -p "$(dirname "$out")"
config=$(mktemp --suffix .toml)
trap 'rm -f "$config"' EXIT
# TOML basic strings: a backslash or a quote in the bot command must be escaped.
escaped=${bot//\\/\\\\}
escaped=${escaped//\"/\\\"}
cat > "$config" <<TOML
seed = $seed
format = "duplicate"
games = $sets
concurrency = $concurrency

[[entrants]]
name = "search"
command = "builtin:search"

[[entrants]]
name = "opponent"
command = "$escaped"
TOML

echo "search-elo: $sets deal sets of builtin:search against $bot, seed $seed, $concurrency tables"
start=$(date +%s)
# Unpinned: on a shared machine a table pinned to a busy core would wait behind its load.
"$referee" tournament "$config" --out "$out" --no-pin > "$out.log" 2>&1 || {
    cat "$out.log"
    exit 1
}
echo "search-elo: played in $(($(date +%s) - start)) s; full standings in $out.log"

mkdir -p "$out-sprt"
cp "$out/journal.jsonl" "$out-sprt/"
sed 's/"sprt": null/"sprt": {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05}/' \
    "$out/tournament.json" > "$out-sprt/tournament.json"
grep -q '"elo1": 50.0' "$out-sprt/tournament.json" || {
    echo "search-elo: could not add the SPRT to the plan" >&2
    exit 1
}
"$referee" standings "$out-sprt" > "$out-sprt.log" 2>&1

echo
sed -n '/^  # entrant/,/^$/p' "$out.log"
grep -E '^  search vs ' "$out.log"
grep -E '^SPRT ' "$out-sprt.log"
grep -E '^This run' "$out.log"
