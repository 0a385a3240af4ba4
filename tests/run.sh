#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - the test runner behind `make test`: every unit binary, every fuzz corpus replay,
# every integration script (tests/{diff,e2e,interop}/*.sh). Each prints TAP; this script
# counts `ok` / `not ok` lines, counts a program that dies without reporting as one failure,
# and ends with the line `N passed, N failed` (CI reads it). Exit status non-zero on failure.
#
# Usage: tests/run.sh BUILD_DIR    (env: MERO_SHARED, TESTS=substring filter, MERO_BIN)
set -u
B=${1:?usage: run.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export MERO_SHARED=${MERO_SHARED:-$(cd "$ROOT/../shared" 2>/dev/null && pwd)}
export MERO_BIN=${MERO_BIN:-$ROOT/$B/bin}
export MERO_ROOT=$ROOT
export MERO_BUILD=$ROOT/$B
filter=${TESTS:-}
passed=0
failed=0
failures=()
logdir=$(mktemp -d "${TMPDIR:-/tmp}/mero-test.XXXXXX")

run_one() { # name timeout cmd...
    local name=$1 limit=$2
    shift 2
    if [ -n "$filter" ] && [[ "$name" != *"$filter"* ]]; then
        return
    fi
    local log="$logdir/$(echo "$name" | tr '/ ' '__').log"
    local start=$SECONDS
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>"$log.err" </dev/null
    local rc=$?
    local ok nok
    ok=$(grep -cE '^ok [0-9]+' "$log")
    nok=$(grep -cE '^not ok [0-9]+' "$log")
    grep -E '^(not )?ok [0-9]+' "$log" | sed "s|^|[$name] |"
    passed=$((passed + ok))
    failed=$((failed + nok))
    if [ "$nok" -gt 0 ]; then
        failures+=("$name")
    fi
    if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
        echo "not ok - $name exited with status $rc (see below)"
        tail -n 30 "$log.err" | sed 's/^/#   /'
        failed=$((failed + 1))
        failures+=("$name")
    elif [ "$nok" -gt 0 ]; then
        tail -n 15 "$log.err" | sed 's/^/#   /'
    fi
    echo "# $name: $ok ok, $nok not ok, $((SECONDS - start)) s"
}

for t in "$ROOT/$B"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "unit/$(basename "$t")" 600 "$t"
done

for r in "$ROOT/$B"/fuzz/replay_*; do
    [ -x "$r" ] || continue
    tgt=${r##*/replay_}
    args=("$ROOT/tests/fuzz/corpus/$tgt")
    if [ -f "$ROOT/tests/fuzz/seeds/$tgt.txt" ] && [ -n "$MERO_SHARED" ]; then
        while IFS= read -r line; do
            [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
            for f in $MERO_SHARED/$line; do
                [ -e "$f" ] && args+=("$f")
            done
        done <"$ROOT/tests/fuzz/seeds/$tgt.txt"
    fi
    run_one "fuzz/$tgt" 600 "$r" "$tgt" "${args[@]}"
done

for dir in diff interop e2e fleet; do
    for s in "$ROOT"/tests/$dir/*.sh; do
        [ -f "$s" ] || continue
        run_one "$dir/$(basename "$s" .sh)" 900 bash "$s"
    done
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "# failing: ${failures[*]}"
    echo "# logs kept in $logdir"
else
    rm -rf "$logdir"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
