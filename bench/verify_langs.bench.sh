#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify_langs.bench.sh - the verifier for other languages (docs/bindings.md), in one run on one
# genuine case (dcapqvl-1 with its collateral, as of its fixed time, the collateral cached):
# in-process C (bench_tee_verify), Python (python/mero_verify.py over libmero.so), Node through
# `calimero-tee-verify --serve` (js/mero_verify.js), the one-shot binary (a process per call),
# and @phala/dcap-qvl-web (in the Node run, rounds interleaved with --serve's) when the npm
# peers are there. Each figure in wall-clock and in CPU time (`_cpu`: every process involved),
# the latter being what holds on a loaded shared machine.
# Prints `bench ...` lines and `ratio ...` lines (x = how many times the first costs the second).
# Targets (issue 18): --serve and Python under 1000 us per verification, >= 5x faster than
# dcap-qvl-web.
set -u
ROOT=${MERO_ROOT:?}
B=${MERO_BUILD:?}
BIN=${MERO_BIN:?}/calimero-tee-verify
T=$(mktemp -d "${TMPDIR:-/tmp}/verify-langs.XXXXXX")
python3 "$ROOT/tests/support/verify_cases.py" "${MERO_SHARED:?}" >"$T/cases.jsonl"
head -n 1 "$T/cases.jsonl" | jq -c .request >"$T/req.json"
jq -c 'del(.collateral)' "$T/req.json" >"$T/nocoll.json"
N=${BENCH_N:-300}
# The fetch-cache variants fetch from a local PCS once (tests/support/pcs_server.py).
python3 "$ROOT/tests/support/pcs_server.py" --collateral "$MERO_SHARED/testdata/tdx/dcapqvl-1/tdx_quote_collateral.json" \
    --port-file "$T/port" --mode ok 2>/dev/null &
SRV=$!
trap 'kill $SRV 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
export CALIMERO_TEE_COLLATERAL_URL=http://127.0.0.1:$(cat "$T/port")

val() { sed -n "s/^bench $1 \([0-9.]*\) us$/\1/p" "$T/out" | head -n 1; }
: >"$T/out"
"$B/bench/bench_tee_verify" "$T/req.json" "$N" | tee -a "$T/out"
"$B/bench/bench_tee_verify" "$T/nocoll.json" "$N" _fetchcache | tee -a "$T/out"
MERO_LIBMERO=$B/libmero.so.0 python3 "$ROOT/bench/verify_langs.py" "$T/req.json" "$N" "$T/nocoll.json" | tee -a "$T/out"
MERO_TEE_VERIFY=$BIN node "$ROOT/bench/verify_langs.mjs" "$T/req.json" "$N" "$T/nocoll.json" | tee -a "$T/out"
# one-shot: a process per verification (start-up, library loading, one verification); CPU
# time from /usr/bin/time, which counts the children
k=40
t0=$(date +%s%N)
/usr/bin/time -f '%U %S' -o "$T/cpu" bash -c "for _ in \$(seq $k); do '$BIN' <'$T/req.json' >/dev/null; done"
t1=$(date +%s%N)
echo "bench verify_oneshot $(((t1 - t0) / 1000 / k)).0 us" | tee -a "$T/out"
awk -v k=$k '{ printf "bench verify_oneshot_cpu %.1f us\n", ($1 + $2) * 1e6 / k }' "$T/cpu" | tee -a "$T/out"

ratio() { # name numerator-bench denominator-bench
    local a b
    a=$(val "$2")
    b=$(val "$3")
    [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v n="$1" 'BEGIN { if (b > 0) printf "ratio %s %.2f\n", n, a / b }'
}
# CPU time first (robust on a shared machine), then wall clock
for s in _cpu ""; do
    ratio serve_roundtrip_vs_inproc$s verify_serve_roundtrip$s tee_verify_inproc$s
    ratio python_vs_inproc$s verify_python$s tee_verify_inproc$s
    ratio oneshot_vs_serve_roundtrip$s verify_oneshot$s verify_serve_roundtrip$s
    ratio dcap_qvl_web_vs_serve_roundtrip$s dcap_qvl_web_same_run$s verify_serve_roundtrip$s
    ratio dcap_qvl_web_vs_serve_js$s dcap_qvl_web_same_run$s verify_serve_js$s
    ratio dcap_qvl_web_vs_python$s dcap_qvl_web_same_run$s verify_python$s
    ratio dcap_qvl_web_vs_inproc$s dcap_qvl_web_same_run$s tee_verify_inproc$s
    ratio dcap_qvl_web_vs_serve_fetchcache$s dcap_qvl_web_same_run$s verify_serve_fetchcache$s
    ratio dcap_qvl_web_vs_python_fetchcache$s dcap_qvl_web_same_run$s verify_python_fetchcache$s
done
