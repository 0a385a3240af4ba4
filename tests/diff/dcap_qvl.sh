#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dcap_qvl.sh - differential test of our DCAP verifier against @phala/dcap-qvl on every genuine
# case and on mutations of the ok cases (tests/js/dcap_diff.mjs). Prints TAP.
set -u
ROOT=${MERO_ROOT:?}
if ! command -v node >/dev/null || [ ! -d "$ROOT/tests/js/node_modules/@phala/dcap-qvl" ]; then
    echo "1..1"
    echo "not ok 1 - dcap-qvl differential # node or tests/js/node_modules/@phala/dcap-qvl missing"
    exit 1
fi
cd "$ROOT/tests/js" && timeout 600 node dcap_diff.mjs
