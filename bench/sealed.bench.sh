#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sealed.bench.sh - issue 31 "Speed": a sealed request against a plaintext one, same route
# (GET /admin-api/identity with the token; POST /admin-api/tee/attest, mock), same merod --mock-tee, same Node process and
# keep-alive fetch, in alternating rounds (bench/sealed_bench.mjs); the client is Calimero's
# unchanged mero-js-sealed. Prints `bench ...` and `ratio sealed_over_plain_request <x>`
# (the issue asks for at most 1.3; it includes the JavaScript client's WebCrypto), and the node's
# own CPU per request both ways, `ratio sealed_over_plain_node_cpu <x>`; then the C client's
# comparison (bench_sealed_http: medians of interleaved rounds, wall, client and node CPU).
set -u
. "$(dirname "$0")/../tests/e2e/node_lib.bash"
SHARED=${MERO_SHARED:-$(cd "$(dirname "$0")/../../shared" && pwd)}
start_node a --mock-tee
MERO_SHARED=$SHARED MEROD_PID=${PIDS[a]} BASE_URL=${URL[a]} TOKEN=${TOKEN[a]} node "$(dirname "$0")/sealed_bench.mjs"
# the same comparison with a C client (libcurl, one keep-alive handle each way, interleaved
# rounds, medians; the node's CPU per request from its schedstat)
MEROD_PID=${PIDS[a]} BASE_URL=${URL[a]} TOKEN=${TOKEN[a]} \
    "${MERO_BUILD:-$(dirname "$0")/../build/release}/bench/bench_sealed_http"
