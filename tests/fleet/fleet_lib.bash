# SPDX-License-Identifier: Apache-2.0
# fleet_lib.bash - the fleet harness (sourced by tests/fleet/*.sh; docs/fleet-harness.md):
# admission_lib.bash plus a fault proxy (faultproxy.py) in front of every node, N merod
# processes on 127.0.0.1 that reach each other only through it (each announces its proxy
# port with --announce and bootstraps through proxy addresses), an owner with a namespace, a
# context and the zero-measurement mock policy, writer members and mock-TEE nodes that
# fleet-join, and the invariants every scenario checks after the faults heal (fleet_check).
# Every wait is a bounded poll. FLEET_N (default 12) sizes the fleet; FLEET_SEED seeds every
# random choice (bash's RANDOM and the proxy's RNG) and is printed.
# the fleet-join budget stays the real 30 s: under 200 ms delays the key takes seconds
export MERO_FLEET_JOIN_BUDGET_MS=${MERO_FLEET_JOIN_BUDGET_MS:-30000}
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/admission_lib.bash"
# sanitizer builds (make asan / tsan) carry shadow memory: 4x the bound there
case "$BIN" in */asan/* | */tsan/*) FLEET_RSS_KB=${FLEET_RSS_KB:-122880} ;; esac
FLEET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FLEET_N=${FLEET_N:-12}
FLEET_SEED=${FLEET_SEED:-$(($(date +%s%N) % 1000000))}
FLEET_RSS_KB=${FLEET_RSS_KB:-30720} # the bound per node: 30 MiB (issue 20's target)
RANDOM=$FLEET_SEED
echo "# fleet: N=$FLEET_N seed=$FLEET_SEED (rerun with FLEET_SEED=$FLEET_SEED FLEET_N=$FLEET_N)"
declare -A PPORT PEER FLAGS ROLE IDENT JOINED
NODES=()
TEE_SET= HEADS_REF= DEAD= DIRECT= MISSING=
: >"$WORK/acked"

# ---- the proxy ----
fleet_proxy_start() {
    python3 "$FLEET_DIR/faultproxy.py" --port-file "$WORK/proxy.port" --seed "$FLEET_SEED" \
        2>>"$WORK/proxy.log" &
    PIDS[proxy]=$!
    local _
    for _ in $(seq 100); do
        [ -s "$WORK/proxy.port" ] && break
        sleep 0.1
    done
    exec 7<>"/dev/tcp/127.0.0.1/$(cat "$WORK/proxy.port")"
}

# pctl COMMAND...: one control command; PREPLY holds the reply; succeeds on "ok"
pctl() {
    echo "$*" >&7
    PREPLY=
    read -r -t 30 PREPLY <&7
    [[ $PREPLY == ok* ]]
}

# ---- nodes ----
# paddr NAME: NAME's address through the proxy (what every other node dials)
paddr() { echo "/ip4/127.0.0.1/tcp/${PPORT[$1]}/p2p/${PEER[$1]}"; }

# fleet_spawn NAME: start (or restart) NAME's merod with its recorded flags behind the proxy
fleet_spawn() {
    local n=$1 _
    rm -f "$WORK/$n/run.json"
    # FLEET_HEAPTRACK_RAW=FILE (the benchmark; Debian's heaptrack): the owner's allocations
    # are recorded raw into FILE (heaptrack_interpret <FILE | zstd >F.zst; heaptrack_print F.zst)
    local pre=()
    [ "$n" = owner ] && [ -n "${FLEET_HEAPTRACK_RAW:-}" ] &&
        pre=(env LD_PRELOAD=/usr/lib/heaptrack/libheaptrack_preload.so
            DUMP_HEAPTRACK_OUTPUT="$FLEET_HEAPTRACK_RAW")
    # shellcheck disable=SC2086 # FLAGS holds words without spaces
    "${pre[@]}" "$BIN/merod" run --home "$WORK/$n" --announce "/ip4/127.0.0.1/tcp/${PPORT[$n]}" ${FLAGS[$n]} \
        >>"$WORK/$n.log" 2>&1 &
    PIDS[$n]=$!
    pctl pid "$n" "${PIDS[$n]}"
    for _ in $(seq 150); do
        [ -s "$WORK/$n/run.json" ] && break
        kill -0 "${PIDS[$n]}" 2>/dev/null || break
        sleep 0.1
    done
    [ -s "$WORK/$n/run.json" ] || return 1
    URL[$n]=$(jq -r .apiUrl "$WORK/$n/run.json")
    TOKEN[$n]=$(tr -d '\n' <"$WORK/$n/admin-token")
    PEER[$n]=$(jq -r .peerId "$WORK/$n/run.json")
    local real
    real=$(jq -r '.listenAddrs[0]' "$WORK/$n/run.json" | cut -d/ -f5)
    pctl upstream "$n" 127.0.0.1 "$real"
}

# fleet_node NAME ROLE [merod flags...]: a new node; bootstraps (through the proxy) to the
# owner, the node started before it and one random earlier node, so any contiguous range of
# the start order stays connected when the rest is cut away
fleet_node() {
    local n=$1 role=$2
    shift 2
    init_node "$n"
    pctl add "$n" || return 1
    PPORT[$n]=${PREPLY#ok }
    local flags="--mock-tee $*" k=${#NODES[@]}
    if [ "$k" -gt 0 ]; then
        flags+=" --bootstrap $(paddr "${NODES[0]}")"
        [ "$k" -gt 1 ] && flags+=" --bootstrap $(paddr "${NODES[$((k - 1))]}")"
        [ "$k" -gt 2 ] && flags+=" --bootstrap $(paddr "${NODES[$((1 + RANDOM % (k - 1)))]}")"
    fi
    FLAGS[$n]=$flags
    ROLE[$n]=$role
    NODES+=("$n")
    fleet_spawn "$n"
}

fleet_kill() { # NAME [SIGNAL]: stop NAME (default SIGKILL: a crash) and wait for it to go
    local n=$1 sig=${2:-KILL} _
    kill "-$sig" "${PIDS[$n]}" 2>/dev/null
    for _ in $(seq 100); do
        kill -0 "${PIDS[$n]}" 2>/dev/null || break
        sleep 0.1
    done
    wait "${PIDS[$n]}" 2>/dev/null
    unset "PIDS[$n]"
}

# fleet_build MEMBERS TEES: proxy, owner (namespace NS, context CTX, mock policy), MEMBERS
# writer members (joined and added as Member), TEES mock-TEE nodes (started, not joined)
fleet_build() {
    local m=$1 t=$2 i
    fleet_proxy_start
    fleet_node owner owner || return 1
    req owner POST /admin-api/namespaces '{}'
    NS=$(jq -r .data.namespaceId <<<"$RESP")
    req owner POST "/admin-api/groups/$NS/contexts" '{}'
    CTX=$(jq -r .data.contextId <<<"$RESP")
    set_zero_policy owner "$NS" true
    for i in $(seq "$m"); do fleet_node "m$i" member || return 1; done
    for i in $(seq "$t"); do fleet_node "t$i" tee || return 1; done
    local body='{"members":['
    for i in $(seq "$m"); do
        req "m$i" POST "/admin-api/namespaces/$NS/join" '{}'
        IDENT[m$i]=$(jq -r .data.identity <<<"$RESP")
        [ "$i" -gt 1 ] && body+=','
        body+="{\"identity\":\"${IDENT[m$i]}\",\"role\":\"Member\"}"
    done
    body+=']}'
    if [ "$m" -gt 0 ]; then
        req owner POST "/admin-api/groups/$NS/members" "$body"
        status_is 200 || return 1
    fi
    # members hold the namespace once its ops reached them
    for i in $(seq "$m"); do
        wait_for 60 member_can_write "m$i" || return 1
    done
}

member_can_write() { fleet_write "$1" "hello-$1" "from $1"; }

# fleet_write NODE KEY VALUE: a write; an acknowledged one (200) is recorded for fleet_check
fleet_write() {
    req "$1" PUT "/admin-api/contexts/$CTX/kv/$2" "{\"value\":\"$3\"}"
    status_is 200 || return 1
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$WORK/acked"
}

# fleet_join_bg NAME [ADMITTERS_JSON]: start NAME's fleet-join in the background; its answer
# lands in $WORK/join.NAME (body) and $WORK/join.NAME.status
fleet_join_bg() {
    local n=$1 addrs=${2:-}
    local body="{\"groupId\":\"$NS\"}"
    [ -n "$addrs" ] && body="{\"groupId\":\"$NS\",\"admitterAddrs\":$addrs}"
    rm -f "$WORK/join.$n" "$WORK/join.$n.status"
    (curl -s -o "$WORK/join.$n" -w '%{http_code}' -X POST --max-time 120 \
        -H "Authorization: Bearer ${TOKEN[$n]}" -H 'Content-Type: application/json' \
        --data-binary "$body" "${URL[$n]}/admin-api/tee/fleet-join" >"$WORK/join.$n.status.tmp"
    mv "$WORK/join.$n.status.tmp" "$WORK/join.$n.status") &
    JOINPID[$n]=$!
}
declare -A JOINPID

# fleet_join_wait NAME...: wait for those joins (each bounded by curl's 120 s); JOINED[n] is
# "true" for an admitted answer, "false" for a refusal or an error
fleet_join_wait() {
    local n
    for n in "$@"; do
        wait "${JOINPID[$n]}" 2>/dev/null
        if [ "$(cat "$WORK/join.$n.status" 2>/dev/null)" = 200 ] &&
            [ "$(jq -r .data.admitted "$WORK/join.$n" 2>/dev/null)" = true ]; then
            JOINED[$n]=true
            IDENT[$n]=$(jq -r .data.public_key "$WORK/join.$n")
        else
            JOINED[$n]=false
        fi
    done
}

tees() { local n; for n in "${NODES[@]}"; do [ "${ROLE[$n]}" = tee ] && echo "$n"; done; }
admitted_count() {
    local n c=0
    for n in $(tees); do [ "${JOINED[$n]:-}" = true ] && c=$((c + 1)); done
    echo "$c"
}

# ---- invariants ----
# the nodes that hold the namespace: owner, members, TEEs that asked to join
participants() {
    local n
    for n in "${NODES[@]}"; do
        [ "${ROLE[$n]}" = tee ] && [ -z "${JOINED[$n]:-}" ] && continue
        echo "$n"
    done
}
log_state() { # NODE: "opcount heads..." of NS on NODE
    req "$1" GET "/admin-api/namespaces/$NS/log"
    status_is 200 && jq -r '[.data.opCount|tostring] + .data.heads | join(" ")' <<<"$RESP"
}
same_heads() {
    local n ref="" s
    for n in $(participants); do
        s=$(log_state "$n") || return 1
        [ -z "$ref" ] && ref=$s
        [ "$s" = "$ref" ] || return 1
    done
    HEADS_REF=$ref
}
# the identities that are TEE members on NODE, sorted, one line
tee_set() {
    req "$1" GET "/admin-api/groups/$NS/members"
    status_is 200 && jq -r '[.members[]|select(.tee==true)|.identity]|sort|join(",")' <<<"$RESP"
}
same_tee_sets() {
    local n ref s
    ref=$(tee_set owner) || return 1
    for n in $(participants); do
        s=$(tee_set "$n") || return 1
        [ "$s" = "$ref" ] || return 1
    done
    TEE_SET=$ref
}
# every acknowledged write is readable on every node that can read (owner, members, admitted
# TEEs; not a member a scenario removed, ROLE "evicted"): one curl per node for all keys (a
# node's answers in order, compared with the values)
acked_everywhere() {
    local n urls want got
    mapfile -t urls < <(cut -f2 "$WORK/acked" | sed "s|^|/admin-api/contexts/$CTX/kv/|")
    want=$(cut -f3 "$WORK/acked")
    [ "${#urls[@]}" -gt 0 ] || return 0
    for n in "${NODES[@]}"; do
        [ "${ROLE[$n]}" = tee ] && [ "${JOINED[$n]:-}" != true ] && continue
        [ "${ROLE[$n]}" = evicted ] && continue
        got=$(curl -s --max-time 60 -H "Authorization: Bearer ${TOKEN[$n]}" \
            "${urls[@]/#/${URL[$n]}}" | jq -r '.data.value // "MISSING"')
        if [ "$got" != "$want" ]; then
            MISSING="$(diff <(echo "$want") <(echo "$got") | grep -c '^>') value(s) on $n:"
            MISSING+=" $(paste -d'|' <(echo "$want") <(echo "$got") | awk -F'|' '$1 != $2 {print $1 " -> " $2}' | head -3 | tr '\n' ';')"
            return 1
        fi
    done
}
# no TEE is a member on one node and refused on another: an admitted answer means a member
# everywhere; a refused (not merely timed-out) answer means a member nowhere
tee_answers_agree() {
    local n st
    for n in $(tees); do
        if [ "${JOINED[$n]:-}" = true ]; then
            [[ ",$TEE_SET," == *",${IDENT[$n]},"* ]] || return 1
        elif [ "$(cat "$WORK/join.$n.status" 2>/dev/null)" = 200 ] &&
            [ "$(jq -r .data.status "$WORK/join.$n")" = refused ]; then
            st=$(jq -r .data.public_key "$WORK/join.$n")
            [[ ",$TEE_SET," != *",$st,"* ]] || return 1
        fi
    done
}
all_alive() {
    local n
    for n in "${NODES[@]}"; do kill -0 "${PIDS[$n]:-none}" 2>/dev/null || {
        DEAD=$n
        return 1
    }; done
}
clean_logs() { ! grep -qE 'AddressSanitizer|runtime error|Assertion .* failed|panicked|Segmentation' "$WORK"/*.log; }
# established connections to a node's real listen port from 127.0.0.1 bypassed the proxy
# (the proxy's upstream connections leave from 127.0.1.x / 127.0.2.1)
no_direct_links() {
    local n real hex
    for n in "${NODES[@]}"; do
        real=$(jq -r '.listenAddrs[0]' "$WORK/$n/run.json" 2>/dev/null | cut -d/ -f5)
        [ -n "$real" ] || continue
        hex=$(printf '%04X' "$real")
        if awk -v p="0100007F:$hex" '$2 == p && $3 ~ /^0100007F:/ && $4 == "01" {f = 1} END {exit !f}' \
            /proc/net/tcp; then
            DIRECT=$n
            return 1
        fi
    done
}
rss_of() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
rss_ok() {
    local n r max=0 sum=0 cnt=0
    for n in "${NODES[@]}"; do
        r=$(rss_of "${PIDS[$n]:-none}")
        [ -n "$r" ] || continue
        sum=$((sum + r))
        cnt=$((cnt + 1))
        [ "$r" -gt "$max" ] && max=$r
    done
    echo "# RSS per node: max ${max} kB, mean $((sum / (cnt > 0 ? cnt : 1))) kB over $cnt nodes (bound ${FLEET_RSS_KB} kB)"
    echo "# proxy RSS: $(rss_of "${PIDS[proxy]}") kB"
    [ "$cnt" -eq "${#NODES[@]}" ] && [ "$max" -le "$FLEET_RSS_KB" ]
}

# fleet_check [CONVERGE_SECONDS]: the invariants, after the faults healed
fleet_check() {
    local limit=${1:-90} t0=$SECONDS n
    pctl heal
    check "every node alive (${#NODES[@]} nodes)${DEAD:+ (dead: $DEAD)}" all_alive
    check "every node holding the namespace ($(participants | wc -l)) reaches the same op-log heads" wait_for "$limit" same_heads
    echo "# converged in $((SECONDS - t0)) s: opCount and heads on every node: ${HEADS_REF:-?}" | cut -c1-160
    same_heads || for n in $(participants); do echo "#   $n: $(log_state "$n" | cut -c1-150)"; done
    check "every node holds the same TEE member set" wait_for "$limit" same_tee_sets
    same_tee_sets || for n in $(participants); do echo "#   $n: TEEs $(tee_set "$n" | cut -c1-150)"; done
    check "no TEE is a member on one node and refused on another" tee_answers_agree
    MISSING=
    check "every acknowledged write ($(wc -l <"$WORK/acked")) is readable on every reader" \
        wait_for "$limit" acked_everywhere
    [ -n "$MISSING" ] && ! acked_everywhere && echo "# missing: $MISSING"
    check "no node dialed another around the proxy" no_direct_links
    check "no sanitizer, assertion or crash line in any log" clean_logs
    check "RSS of every node within ${FLEET_RSS_KB} kB" rss_ok
    pctl stats && echo "# proxy: ${PREPLY#ok }"
}

# on failure keep the evidence: the logs' last lines go to the TAP output as comments
fleet_finish() {
    if [ "$FAILS" -gt 0 ]; then
        local f
        for f in "$WORK"/*.log; do
            echo "# == $f"
            grep -E 'WARN|ERROR' "$f" | tail -n 8 | sed 's/^/#   /'
        done
        echo "# seed was $FLEET_SEED"
    fi
    finish
}
