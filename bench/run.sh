#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh BUILD_DIR - runs every benchmark binary (bench_*) and every bench/*.bench.sh script.
# Each prints `bench <name> <value> <unit>` and `ratio <name> <value>` lines. Timing lives
# here, never in pass/fail tests.
set -u
B=${1:?usage: bench/run.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export MERO_SHARED=${MERO_SHARED:-$(cd "$ROOT/../shared" && pwd)}
export MERO_BIN=$ROOT/$B/bin MERO_ROOT=$ROOT MERO_BUILD=$ROOT/$B
for b in "$ROOT/$B"/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "# $(basename "$b")"
    "$b" || echo "# $(basename "$b") exited with $?"
done
for s in "$ROOT"/bench/*.bench.sh; do
    [ -f "$s" ] || continue
    echo "# $(basename "$s")"
    bash "$s" || echo "# $(basename "$s") exited with $?"
done
