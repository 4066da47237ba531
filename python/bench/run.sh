#!/usr/bin/env bash
# python/bench/run.sh: builds the release wheel and prints python/bench/steps.py's figures.
# It installs maturin, pettingzoo, rlcard (texas_holdem_v4's engine), pygame (which that module
# imports) and numpy from PyPI into a virtual environment under the target folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
command -v python3 >/dev/null 2>&1 || { echo "python/bench/run.sh: python3 is missing" >&2; exit 1; }
venv=$target/py-bench
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
echo "python/bench/run.sh: installing maturin, pettingzoo, rlcard, pygame and numpy into $venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  'maturin>=1.9,<2' 'pettingzoo>=1.24' 'gymnasium>=0.28' rlcard pygame numpy
rm -rf "$target/py-bench-wheels"
(cd "$root/python" && CARGO_TARGET_DIR=$target "$venv/bin/maturin" build --release --locked -q \
  -o "$target/py-bench-wheels")
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$target"/py-bench-wheels/*.whl
cd "$root"
"$venv/bin/python" python/bench/steps.py "$@"
