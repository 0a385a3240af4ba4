#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# intel_qvl.sh - our DCAP verdicts against Intel's own Quote Verification Library: runs
# tests/diff/qvl_diff.c (built as $MERO_BUILD/diff/qvl_diff) with the qvl_oracle that `make test`
# builds once from ../shared/oracles/intel-qvl into build/qvl. Every genuine case, >= 2000
# single-byte quote mutations over every region, collateral mutations; the deliberate
# differences are docs/verification.md §4.1. Deterministic (MERO_QVL_SEED). Prints TAP.
set -u
ROOT=${MERO_ROOT:?}
ORACLE=${MERO_QVL_ORACLE:-$ROOT/build/qvl/bin/qvl_oracle}
DRIVER=${MERO_BUILD:?}/diff/qvl_diff
# The ThreadSanitizer build (make tsan) builds neither the driver nor the oracle: the
# differential runs one thread, so TSan has nothing to find in it, and the verdict code it
# compares runs under the release build and the ASan lane. A clean skip, not a failure.
if [ "$(basename "$MERO_BUILD")" = tsan ]; then
    echo "1..1"
    echo "ok 1 - Intel QVL differential # SKIP not built under ThreadSanitizer (make tsan):" \
        "single-threaded; run by make test / make asan"
    exit 0
fi
if [ ! -x "$ORACLE" ] || [ ! -x "$DRIVER" ]; then
    echo "1..1"
    echo "not ok 1 - Intel QVL differential # $ORACLE or $DRIVER missing (make check-build builds both)"
    exit 1
fi
"$ORACLE" --version | sed 's/^/# /'
start=$SECONDS
"$DRIVER" "$ORACLE"
rc=$?
echo "# differential wall time $((SECONDS - start)) s"
exit $rc
