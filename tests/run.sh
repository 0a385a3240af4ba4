#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - the test runner behind `make test`: every unit binary, every fuzz corpus replay,
# every integration script (tests/{diff,e2e,interop}/*.sh). Each prints TAP; this script
# counts `ok` / `not ok` lines, counts a program that dies without reporting as one failure,
# and ends with the line `N passed, N failed` (CI reads it). A TAP `ok ... # SKIP` line (any
# case) or a `1..0` plan is counted as skipped, never as passed; when anything was skipped the
# line is `N passed, N failed, N skipped` (the first two fields stay first). Exit status
# non-zero on failure.
#
# Lanes (issue 20; `make test` sets them when TESTS is empty, docs/build-and-tests.md):
#   MERO_LINT=1             first `make lint`, one TAP item `lint/make-lint`
#   MERO_ASAN_LANE=DIR      then every unit binary and fuzz replay again from DIR (an ASan +
#                           UBSan build), named `asan/unit/...`, `asan/fuzz/...`
#   MERO_TSAN_LANE=DIR      last, the unit binaries named in MERO_TSAN_LANE_TESTS again from DIR
#                           (a ThreadSanitizer build, issue 23), named `tsan/unit/...`
# Every lane counts in the one closing line.
#
# Network (issue 32): each integration script runs in its own loopback-only network namespace
# (`unshare -n`, then `ip link set lo up`: 127.0.0.1/8 and ::1, no other interface, no route),
# so a connection or a name lookup that would leave the host fails at once (ENETUNREACH)
# instead of leaving it. Where the machine does not allow one (no CAP_SYS_ADMIN, no unshare or
# ip, no ::1 in the namespace while the host has one) the scripts run on the host's network
# and one `# note:` line says why. MERO_NETNS=0 turns the namespace off.
#
# Usage: tests/run.sh BUILD_DIR    (env: MERO_SHARED, TESTS=substring filter, MERO_BIN,
#                                   MERO_LINT, MERO_ASAN_LANE, MERO_TSAN_LANE[_TESTS],
#                                   MERO_NETNS)
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
skipped=0
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
    local ok nok skip
    # a skip directive: `ok N ... # SKIP reason` (TAP: case-insensitive), or a `1..0` plan
    skip=$(grep -ciE '^ok [0-9]+[^#]*#[[:space:]]*skip' "$log")
    ok=$(($(grep -cE '^ok [0-9]+' "$log") - skip))
    nok=$(grep -cE '^not ok [0-9]+' "$log")
    if grep -qE '^1\.\.0([^0-9]|$)' "$log"; then
        skip=$((skip + 1))
    fi
    grep -E '^(not )?ok [0-9]+' "$log" | sed "s|^|[$name] |"
    passed=$((passed + ok))
    failed=$((failed + nok))
    skipped=$((skipped + skip))
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
    echo "# $name: $ok ok, $nok not ok, $skip skipped, $((SECONDS - start)) s"
}

if [ "${MERO_LINT:-0}" = 1 ]; then
    # make lint as one TAP item (its own output goes to the item's log)
    run_one "lint/make-lint" 1800 bash -c 'if make -C "$0" --no-print-directory lint; then
        echo "ok 1 - make lint"; else echo "not ok 1 - make lint"; fi' "$ROOT"
fi

unit_and_fuzz() { # build dir, name prefix
    local bd=$1 pre=$2
    for t in "$ROOT/$bd"/tests/test_*; do
        [ -x "$t" ] || continue
        run_one "${pre}unit/$(basename "$t")" 600 "$t"
    done

    for r in "$ROOT/$bd"/fuzz/replay_*; do
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
        run_one "${pre}fuzz/$tgt" 600 "$r" "$tgt" "${args[@]}"
    done
}

unit_and_fuzz "$B" ""

# netns_check: the prefix that runs a command in a fresh loopback-only network namespace, in
# NETNS; or NETNS empty and the reason in NETNS_WHY
NETNS=()
NETNS_WHY=
netns_check() {
    local up='ip link set lo up && exec "$@"' out
    if [ "${MERO_NETNS:-1}" = 0 ]; then
        NETNS_WHY="MERO_NETNS=0"
        return
    fi
    if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
        NETNS_WHY="no unshare or ip (util-linux, iproute2)"
        return
    fi
    # the namespace must have the host's loopback addresses: 127.0.0.1, and ::1 if the host has
    # it, and nothing else up
    local want6=0
    [ -n "$(ip -6 addr show dev lo 2>/dev/null | grep -F '::1/128')" ] && want6=1
    if ! out=$(unshare -n sh -c "$up" netns sh -c "ip -4 addr show dev lo | grep -qF 127.0.0.1/8 &&
        { [ $want6 = 0 ] || ip -6 addr show dev lo | grep -qF ::1/128; } &&
        [ \"\$(ip -o link show up | grep -vc ': lo:')\" = 0 ]" 2>&1); then
        NETNS_WHY="unshare -n refused or the namespace lacks loopback: ${out//$'\n'/ }"
        NETNS_WHY=${NETNS_WHY:0:200}
        return
    fi
    NETNS=(unshare -n sh -c "$up" netns)
}
netns_noted=0
for dir in diff interop e2e fleet; do
    for s in "$ROOT"/tests/$dir/*.sh; do
        [ -f "$s" ] || continue
        name="$dir/$(basename "$s" .sh)"
        if [ -n "$filter" ] && [[ "$name" != *"$filter"* ]]; then
            continue
        fi
        if [ "$netns_noted" = 0 ]; then
            netns_noted=1
            netns_check
            if [ ${#NETNS[@]} -eq 0 ]; then
                echo "# note: integration scripts run on the host's network, not in a" \
                    "loopback-only namespace: $NETNS_WHY"
            fi
        fi
        run_one "$name" 900 ${NETNS[@]+"${NETNS[@]}"} bash "$s"
    done
done

if [ -n "${MERO_ASAN_LANE:-}" ]; then
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        MERO_BIN=$ROOT/$MERO_ASAN_LANE/bin MERO_BUILD=$ROOT/$MERO_ASAN_LANE \
        unit_and_fuzz "$MERO_ASAN_LANE" "asan/"
fi

if [ -n "${MERO_TSAN_LANE:-}" ]; then
    # any ThreadSanitizer report ends the binary with exit code 66: a failure
    for t in ${MERO_TSAN_LANE_TESTS:-}; do
        TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1} \
            MERO_BIN=$ROOT/$MERO_TSAN_LANE/bin MERO_BUILD=$ROOT/$MERO_TSAN_LANE \
            run_one "tsan/unit/$t" 600 "$ROOT/$MERO_TSAN_LANE/tests/$t"
    done
fi

if [ ${#failures[@]} -gt 0 ]; then
    echo "# failing: ${failures[*]}"
    echo "# logs kept in $logdir"
else
    rm -rf "$logdir"
fi
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
