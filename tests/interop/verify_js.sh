#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify_js.sh - runs tests/interop/verify_js.mjs: js/mero_verify.js over this build's
# `calimero-tee-verify --serve`, against the one-shot binary. Needs Node 18+ (no npm package).
set -u
ROOT=${MERO_ROOT:?}
if ! command -v node >/dev/null; then
    echo "1..1"
    echo "not ok 1 - node is installed # missing"
    exit 1
fi
exec timeout 600 node "$ROOT/tests/interop/verify_js.mjs"
