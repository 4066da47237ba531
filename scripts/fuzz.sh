#!/usr/bin/env bash
# Runs each cargo-fuzz target of fuzz/ for a bounded time: scripts/fuzz.sh [SECONDS] (default 60
# per target). Needs `cargo install cargo-fuzz`. Works on the stable compiler: RUSTC_BOOTSTRAP=1
# lets stable accept the -Z flags cargo-fuzz passes for a sanitizer (FUZZ_SANITIZER=address);
# the default, none, needs no unstable flag at all and runs about twice as fast (rules and
# protocol hold no unsafe code for a sanitizer to watch).
#
# New inputs go to fuzz/work/TARGET (not committed); fuzz/corpus/TARGET is the small committed
# seed corpus, read only. A crash is saved in fuzz/artifacts/TARGET/; minimise it with
# `cargo fuzz tmin TARGET FILE`, keep it under fuzz/regressions/TARGET/, and the regression
# tests (rules/tests/fuzz_regressions.rs, protocol/tests/fuzz_regressions.rs) replay it.
# Exits non-zero when any target found a failure.
set -uo pipefail

seconds=${1:-60}
targets=${FUZZ_TARGETS:-codec engine}
sanitizer=${FUZZ_SANITIZER:-none}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz" || exit 2

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz is not installed; run: cargo install cargo-fuzz" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=1

status=0
for target in $targets; do
    mkdir -p "work/$target"
    dict=()
    if [[ -f "dicts/$target.dict" ]]; then
        dict=("-dict=dicts/$target.dict")
    fi
    echo "== $target: ${seconds}s, sanitizer $sanitizer" >&2
    # -timeout: an input that runs for 10 s is a hang (the engine target bounds every match).
    if ! cargo fuzz run -s "$sanitizer" "$target" "work/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -print_final_stats=1 "${dict[@]}" \
        2>&1 | tee "work/$target.log"; then
        echo "fuzz.sh: $target FAILED; see fuzz/artifacts/$target/ and fuzz/work/$target.log" >&2
        status=1
    fi
done
exit $status
