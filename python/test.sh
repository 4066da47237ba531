#!/usr/bin/env bash
# python/test.sh: builds the `aluette` wheel and runs the Python tests (PettingZoo's api_test, the
# seed test, the leak test, the README's examples, the bot bridge in a real `referee match`).
#
# It installs maturin, pettingzoo, gymnasium, numpy and pytest from PyPI into a build virtual
# environment under the target folder (reused across runs), builds the abi3 wheel with maturin,
# installs it into a fresh virtual environment with pettingzoo and pytest, and runs
# python/tests there. The bridge test needs the debug referee (`cargo build --workspace --bins`).
set -euo pipefail
# Builtins only up to the checks below, so a bare PATH still gets the one-line reason.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
root=$(cd "$here/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
fail() { echo "python/test.sh: $*" >&2; exit 1; }

command -v python3 >/dev/null 2>&1 || fail "python3 is missing: install Python 3.9 or later"
python3 -m pip --version >/dev/null 2>&1 \
  || fail "pip is missing for python3: run 'python3 -m ensurepip' or install python3-pip"
python3 -m venv --help >/dev/null 2>&1 || fail "python3 has no venv module: install python3-venv"
referee=$target/debug/referee
[ -x "$referee" ] || fail "$referee is missing: run 'cargo build --workspace --bins' first"

build=$target/py-build
echo "python/test.sh: installing maturin, pettingzoo, gymnasium, numpy and pytest into $build"
[ -x "$build/bin/python" ] || python3 -m venv "$build"
"$build/bin/python" -m pip install -q --disable-pip-version-check \
  'maturin>=1.9,<2' 'pettingzoo>=1.24' 'gymnasium>=0.28' numpy pytest

wheels=$target/py-wheels
rm -rf "$wheels"
echo "python/test.sh: building the abi3 wheel with maturin"
(cd "$root/python" && CARGO_TARGET_DIR=$target "$build/bin/maturin" build --locked -q -o "$wheels")
wheel=$(ls "$wheels"/aluette-*.whl)

fresh=$target/py-test
echo "python/test.sh: installing $(basename "$wheel"), pettingzoo and pytest into a fresh $fresh"
rm -rf "$fresh"
python3 -m venv "$fresh"
"$fresh/bin/python" -m pip install -q --disable-pip-version-check "$wheel" \
  'pettingzoo>=1.24' 'gymnasium>=0.28' pytest

# From the repository root, so the source folder python/aluette cannot shadow the installed wheel.
cd "$root"
ALUETTE_REFEREE=$referee "$fresh/bin/python" -m pytest -q -p no:cacheprovider python/tests
