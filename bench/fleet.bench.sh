#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fleet.bench.sh - the fleet benchmark (issue 20, "Speed"): for each fleet size N (default
# "10 50", env FLEET_BENCH_NS) a fresh fleet from tests/fleet/fleet_lib.bash (owner, members
# and mock-TEE nodes, every link through the fault proxy with no fault set), then
#   - T = 4N/5 mock-TEE nodes (40 at N=50, 8 at N=10) fleet-join the owner at the same moment
#     (admitterAddrs = the owner): the time until the last join answered (its answer file's
#     mtime), and admissions per second over that time; it also prints when each answer came
#     and the admitter's CPU time over the burst;
#   - K owner writes (FLEET_BENCH_K, default 20), one at a time, each timed from the PUT until
#     its value is readable on EVERY other node that can read (members and admitted TEEs):
#     one python3 poller thread per node on a keep-alive connection, every 10 ms;
#     median and worst over the K writes;
#   - VmRSS of every merod (mean and max), and the owner's own VmRSS and libp2p connections
#     (mero_peers_connected) at the end (issue 33: the owner was the hotspot).
# Each size runs in its own child process (fleet_lib's state and cleanup are per process);
# the parent prints `bench` lines, one table with the sizes side by side, and the growth
# ratios (largest size over smallest). Targets: write to all 50 within 1 s, 40 joins within
# 10 s, RSS under 30 MB per node. Timing only: nothing here is a pass/fail test.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --one ]; then
    export FLEET_N=$2
    . "$HERE/../tests/fleet/fleet_lib.bash"
    K=${FLEET_BENCH_K:-20}
    T=$((FLEET_N * 4 / 5))
    M=$((FLEET_N - 1 - T))
    t0=$SECONDS
    # FLEET_BUILD_LOG=FILE: what the set-up printed (why a fleet did not come up)
    fleet_build "$M" "$T" >"${FLEET_BUILD_LOG:-/dev/null}" 2>&1 || {
        echo "# N=$FLEET_N: the fleet did not come up"
        exit 1
    }
    echo "# N=$FLEET_N: owner, $M members, $T TEE nodes up in $((SECONDS - t0)) s" >&2
    # the admitter's CPU time (utime + stime, clock ticks) over the burst: whether it is busy
    cpu() { awk '{print $14 + $15}' "/proc/${PIDS[owner]}/stat"; }
    c0=$(cpu)
    # the whole machine over the burst (issue 33: on two cores, is the machine, not the admitter,
    # what saturates?): busy and total ticks of /proc/stat, every node's and the proxy's own
    machine_ticks() { awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
    proxy_pid=$(pgrep -f "faultproxy.py --port-file $WORK/proxy.port" | head -n 1)
    procs_ticks() {
        for p in "$@"; do [ -r "/proc/$p/stat" ] && awk '{print $14 + $15}' "/proc/$p/stat"; done |
            awk '{s += $1} END {printf "%d", s}'
    }
    read -r mb0 mt0 <<<"$(machine_ticks)"
    w0=$(date +%s%N)
    n0=$(procs_ticks "${PIDS[@]}")
    p0=$(procs_ticks $proxy_pid)
    # the owner's connections and trims, every second from the burst to the end (issue 33: does the
    # connection manager hold it at its high watermark, and how often does it trim?)
    owner_metric() {
        curl -s --max-time 5 -H "Authorization: Bearer ${TOKEN[owner]}" "${URL[owner]}/metrics" |
            awk -v m="$1" '$1 == m {print $2}'
    }
    (while :; do
        echo "$(owner_metric mero_peers_connected) $(owner_metric mero_net_conns_trimmed_total)"
        sleep 1
    done) \
        >"$WORK/owner_conns" 2>/dev/null &
    SAMPLER=$!
    # gossip messages delivered, all nodes together (issue 33, the prompt flood: each
    # joiner's re-prompts reach every subscriber)
    gossip_in_all() {
        for n in "${NODES[@]}"; do echo "${URL[$n]} ${TOKEN[$n]}"; done |
            xargs -P 16 -n 2 sh -c 'curl -s --max-time 10 -H "Authorization: Bearer $1" "$0/metrics"' |
            awk '$1 == "mero_gossip_messages_total{direction=\"in\"}" {s += $2}
                 $1 == "mero_admission_prompts_total{fate=\"unchecked\"}" {u += $2}
                 END {printf "%d %d", s, u}'
    }
    read -r g0 u0 <<<"$(gossip_in_all)"
    # FLEET_BENCH_PERF=FILE: a system-wide perf profile of the burst, written to FILE (call graphs:
    # FLEET_BENCH_PERF_CG, default fp; "dwarf,8192" unwinds through libsodium; FLEET_BENCH_PERF_HZ)
    [ -n "${FLEET_BENCH_PERF:-}" ] && {
        perf record -a --call-graph "${FLEET_BENCH_PERF_CG:-fp}" -F "${FLEET_BENCH_PERF_HZ:-199}" -o "$FLEET_BENCH_PERF" >/dev/null 2>&1 &
        PERF=$!
    }
    start=$(date +%s%N)
    for n in $(tees); do fleet_join_bg "$n" "[\"$(paddr owner)\"]"; done
    fleet_join_wait $(tees)
    [ -n "${FLEET_BENCH_PERF:-}" ] && kill -INT "$PERF" && wait "$PERF"
    read -r g1 u1 <<<"$(gossip_in_all)"
    echo "# N=$FLEET_N: gossip messages delivered over the burst: $(((g1 - g0) / FLEET_N)) per node, $((g1 - g0)) in all; prompts dropped before a signature check: $((u1 - u0)) in all" >&2
    adm=$(admitted_count)
    # when each answer landed (its status file's mtime), in s after the burst began, sorted:
    # shows whether admissions come steadily or in waves (e.g. of the re-prompt period). The
    # time "all admitted" is the last answer's, not when bash finished reading the answers.
    at=$(for n in $(tees); do stat -c %.3Y "$WORK/join.$n.status"; done |
        awk -v s="$start" '{printf "%.3f\n", $1 - s / 1e9}' | sort -n)
    echo "# N=$FLEET_N: joins answered at (s): $(tr '\n' ' ' <<<"$at")" >&2
    ms=$(tail -n 1 <<<"$at" | awk '{printf "%d", $1 * 1000}')
    echo "# N=$FLEET_N: the admitter's CPU over the burst: $((($(cpu) - c0) * 1000 / $(getconf CLK_TCK))) ms (wall $ms ms)" >&2
    read -r mb1 mt1 <<<"$(machine_ticks)"
    tck=$(getconf CLK_TCK)
    echo "# N=$FLEET_N: over the $((($(date +%s%N) - w0) / 1000000)) ms from the burst's start to its answers read, the machine's $(nproc) cores were $(((mb1 - mb0) * 100 / (mt1 - mt0 > 0 ? mt1 - mt0 : 1)))% busy; CPU of all nodes together $((($(procs_ticks "${PIDS[@]}") - n0) * 1000 / tck)) ms, of the fault proxy $((($(procs_ticks $proxy_pid) - p0) * 1000 / tck)) ms" >&2
    readers=()
    for n in "${NODES[@]}"; do
        [ "$n" = owner ] && continue
        [ "${ROLE[$n]}" = tee ] && [ "${JOINED[$n]}" != true ] && continue
        readers+=("${URL[$n]}" "${TOKEN[$n]}")
    done
    # the write latencies: "median_ms worst_ms reached_writes"
    wr=$(python3 - "$K" "$CTX" "${URL[owner]}" "${TOKEN[owner]}" "${readers[@]}" <<'PY'
import http.client, json, statistics, sys, threading, time, urllib.parse
k, ctx = int(sys.argv[1]), sys.argv[2]
def conn(url, tok):
    u = urllib.parse.urlparse(url)
    return [u.hostname, u.port, None, {"Authorization": "Bearer " + tok,
                                       "Content-Type": "application/json"}]
def req(c, m, p, b=None):
    for _ in range(2):  # one reconnect if the keep-alive connection was closed
        try:
            if c[2] is None:
                c[2] = http.client.HTTPConnection(c[0], c[1], timeout=10)
            c[2].request(m, p, body=json.dumps(b) if b is not None else None, headers=c[3])
            r = c[2].getresponse()
            d = r.read()
            return r.status, (json.loads(d) if d else None)
        except (OSError, http.client.HTTPException, ValueError):
            c[2] = None
    return 0, None
owner = conn(sys.argv[3], sys.argv[4])
nodes = [conn(sys.argv[i], sys.argv[i + 1]) for i in range(5, len(sys.argv), 2)]
lat = []
for i in range(k):
    key, val = f"bench-{i}", f"bench value {i}"
    path = f"/admin-api/contexts/{ctx}/kv/{key}"
    got = [None] * len(nodes)
    def poll(j, t0):
        while time.monotonic() - t0 < 30:
            st, r = req(nodes[j], "GET", path)
            if st == 200 and r and r.get("data", {}).get("value") == val:
                got[j] = time.monotonic() - t0
                return
            time.sleep(0.01)
    t0 = time.monotonic()
    st, _ = req(owner, "PUT", path, {"value": val})
    if st != 200:
        print(f"# write {i}: PUT answered {st}", file=sys.stderr)
        continue
    th = [threading.Thread(target=poll, args=(j, t0)) for j in range(len(nodes))]
    for t in th: t.start()
    for t in th: t.join()
    if None in got:
        print(f"# write {i}: {got.count(None)} node(s) never read it in 30 s", file=sys.stderr)
        continue
    lat.append(max(got))
if lat:
    print("%.1f %.1f %d" % (statistics.median(lat) * 1e3, max(lat) * 1e3, len(lat)))
else:
    print("nan nan 0")
PY
)
    sum=0 max=0 cnt=0
    for n in "${NODES[@]}"; do
        r=$(rss_of "${PIDS[$n]}")
        [ -n "$r" ] || continue
        sum=$((sum + r)) cnt=$((cnt + 1))
        [ "$r" -gt "$max" ] && max=$r
    done
    read -r wmed wmax wn <<<"$wr"
    # FLEET_BENCH_IDLE=S: the fleet idles S seconds after the writes, the steady state the
    # connection manager and the redials settle in (the samples of that stretch, apart)
    idle=${FLEET_BENCH_IDLE:-0}
    if [ "$idle" -gt 0 ]; then
        mark=$(wc -l <"$WORK/owner_conns")
        sleep "$idle"
        tail -n +"$((mark + 1))" "$WORK/owner_conns" | awk -v n="$FLEET_N" -v s="$idle" '
            NF == 2 {c++; v += $1; if (c == 1) {lo = $1; t0 = $2} if ($1 < lo) lo = $1; if ($1 > hi) hi = $1; t = $2}
            END {if (c) printf "# N=%d: idle %d s after the writes: the owner'"'"'s connections min %d mean %.1f max %d; %d trimmed\n", n, s, lo, v / c, hi, t - t0}' >&2
    fi
    kill "$SAMPLER" 2>/dev/null
    wait "$SAMPLER" 2>/dev/null
    orss=$(rss_of "${PIDS[owner]}")
    oconn=$(owner_metric mero_peers_connected)
    awk -v n="$FLEET_N" 'NF == 2 {s += $1; c++; if (c == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1; t = $2}
        END {if (c) printf "# N=%d: the owner'"'"'s connections every second from the burst on: min %d mean %.1f max %d over %d samples; %d trimmed in all\n", n, lo, s / c, hi, c, t}' \
        "$WORK/owner_conns" >&2
    # FLEET_BENCH_SAMPLES=FILE: the per-second samples ("connections trimmed_total"), kept
    [ -n "${FLEET_BENCH_SAMPLES:-}" ] && cp "$WORK/owner_conns" "$FLEET_BENCH_SAMPLES"
    # the owner's heap as it stands now, not as a clean exit leaves it
    [ -n "${FLEET_HEAPTRACK_RAW:-}" ] && kill -9 "${PIDS[owner]}"
    echo "RESULT $FLEET_N $T $adm $ms $wmed $wmax $wn $K $((sum / (cnt > 0 ? cnt : 1))) $max $cnt ${orss:-nan} ${oconn:-nan}"
    exit 0
fi

declare -A R
SIZES=${FLEET_BENCH_NS:-10 50}
for n in $SIZES; do
    line=$(bash "$0" --one "$n" 2>&1 | tee /dev/stderr | grep '^RESULT') || true
    [ -n "$line" ] && R[$n]=${line#RESULT }
done 2> >(grep '^#' >&2)
sleep 0.2
for n in $SIZES; do
    [ -n "${R[$n]:-}" ] || continue
    read -r N T adm ms wmed wmax wn K rmean rmax cnt orss oconn <<<"${R[$n]}"
    aps=$(awk -v a="$adm" -v m="$ms" 'BEGIN {printf "%.1f", (m > 0 ? a * 1000 / m : 0)}')
    echo "bench fleet_n${N}_joins_all_admitted $ms ms ($adm/$T concurrent joiners)"
    echo "bench fleet_n${N}_admissions_per_s $aps /s"
    echo "bench fleet_n${N}_write_reach_all_median $wmed ms ($wn/$K writes, $((N - 1)) readers)"
    echo "bench fleet_n${N}_write_reach_all_worst $wmax ms"
    echo "bench fleet_n${N}_rss_mean $rmean kB ($cnt nodes)"
    echo "bench fleet_n${N}_rss_max $rmax kB"
    echo "bench fleet_n${N}_owner_rss $orss kB"
    echo "bench fleet_n${N}_owner_connections $oconn"
    R[$n]="$N $T $adm $ms $aps $wmed $wmax $rmean $rmax $orss $oconn"
done
# the table: one column per size, then the growth ratios (last size over first)
set -- $SIZES
first=$1 last=${!#}
row() { # LABEL FIELD_INDEX
    local n out f=$2
    out=$(printf '# %-28s' "$1")
    for n in $SIZES; do
        [ -n "${R[$n]:-}" ] || continue
        out+=$(printf ' %12s' "$(cut -d' ' -f"$f" <<<"${R[$n]}")")
    done
    echo "$out"
}
printf '# %-28s' "fleet size N"
for n in $SIZES; do printf ' %12s' "$n"; done
echo
row "concurrent joiners" 2
row "admitted" 3
row "all admitted (ms)" 4
row "admissions/s" 5
row "write reach all, median ms" 6
row "write reach all, worst ms" 7
row "RSS mean (kB)" 8
row "RSS max (kB)" 9
row "owner RSS (kB)" 10
row "owner connections" 11
if [ "$first" != "$last" ] && [ -n "${R[$first]:-}" ] && [ -n "${R[$last]:-}" ]; then
    ratio() { # NAME FIELD
        awk -v a="$(cut -d' ' -f"$2" <<<"${R[$last]}")" -v b="$(cut -d' ' -f"$2" <<<"${R[$first]}")" \
            -v n="$1" 'BEGIN {if (b > 0) printf "ratio %s %.2f\n", n, a / b}'
    }
    ratio "fleet_n${last}_over_n${first}_joins_all_admitted" 4
    ratio "fleet_n${last}_over_n${first}_admissions_per_s" 5
    ratio "fleet_n${last}_over_n${first}_write_reach_median" 6
    ratio "fleet_n${last}_over_n${first}_write_reach_worst" 7
    ratio "fleet_n${last}_over_n${first}_rss_mean" 8
fi
