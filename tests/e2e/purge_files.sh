#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# purge_files.sh - issue 16 "Self-purge that leaves nothing": after a TEE's self-purge no
# plaintext of the namespace (its kv keys and values, one large enough for overflow pages) is
# left in ANY file under the node's home, read as bytes (databases, WAL and shm files, free
# pages included), while the node still runs (so SQLite's close-time checkpoint cannot be what
# cleans up). Four evicted TEEs: one purges normally, three are stopped by the test seam
# MERO_TEST_PURGE_CRASH_AFTER=N (--test; _exit, no clean close) after purge step 1 (context
# state deleted), 2 (governance purged, marker cleared) and 3 (checkpoint done), then restart;
# each ends with the same clean home. Before any purge the same search finds every value on
# every TEE, so the search could fail.
. "$(dirname "$0")/admission_lib.bash"

# hits DIR WORD...: print each WORD found as bytes in some file under DIR (and where)
hits() {
    python3 - "$@" <<'EOF'
import os, sys
root, words = sys.argv[1], [w.encode() for w in sys.argv[2:]]
for d, _, files in os.walk(root):
    for f in files:
        p = os.path.join(d, f)
        try:
            data = open(p, 'rb').read()
        except OSError:
            continue
        for w in words:
            if w in data:
                print(w.decode(), os.path.relpath(p, root))
EOF
}
# none_left NODE: no value or key of the namespace in any file of NODE's home, nor its log
none_left() {
    local out
    out=$(hits "$WORK/$1" "${WORDS[@]}")
    out+=$(grep -aoF -e "${WORDS[0]}" -e "${WORDS[1]}" -e "${WORDS[2]}" "$WORK/$1.log")
    [ -z "$out" ] || { echo "$out" | sort -u | sed 's/^/# left: /'; return 1; }
}
# all_present NODE: every value is somewhere in NODE's home (the search can fail)
all_present() {
    local n
    n=$(hits "$WORK/$1" "${VALS[@]}" | cut -d' ' -f1 | sort -u | wc -l)
    [ "$n" -eq "${#VALS[@]}" ]
}

start_node owner --mock-tee
O=$(p2p_addr owner)
TEES=(t0 t1 t2 t3)
for i in 0 1 2 3; do
    init_node "t$i"
    if [ "$i" -eq 0 ]; then
        run_node t0 --mock-tee --bootstrap "$O"
    else
        MERO_TEST_PURGE_CRASH_AFTER=$i run_node "t$i" --mock-tee --test --bootstrap "$O"
    fi
done

R=$RANDOM$RANDOM
V1="purgeval-alpha-$R"
V2="purgeval-bravo-$R"
BIG="purgeval-large-$R-$(printf 'x%.0s' $(seq 9000))"
K1="purgekey-one-$R"
K2="purgekey-two-$R"
K3="purgekey-big-$R"
VALS=("$V1" "$V2" "purgeval-large-$R")
WORDS=("$V1" "$V2" "purgeval-large-$R" "$K1" "$K2" "$K3")

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_zero_policy owner "$NS" true
req owner PUT "/admin-api/contexts/$CTX/kv/$K1" "{\"value\":\"$V1\"}"
check "owner writes the first value" status_is 200
req owner PUT "/admin-api/contexts/$CTX/kv/$K3" "{\"value\":\"$BIG\"}"
check "owner writes the large value" status_is 200
declare -A ID
for t in "${TEES[@]}"; do
    fleet_join "$t" "$NS"
    check "$t admitted" jq_is .data.admitted true
    ID[$t]=$(jq -r .data.public_key <<<"$RESP")
done
req owner PUT "/admin-api/contexts/$CTX/kv/$K2" "{\"value\":\"$V2\"}"
check "owner writes a value after the admissions" status_is 200
for t in "${TEES[@]}"; do
    check "$t reads every value" wait_for 20 eval "kv_is $t $CTX $K1 $V1 && kv_is $t $CTX $K2 $V2 && kv_is $t $CTX $K3 $BIG"
    check "before the purge the search finds every value in $t's home" all_present "$t"
done

purged_log() { grep -q "self-purge: evicted TEE; namespace" "$WORK/$1.log"; }
gone() { req "$1" GET "/admin-api/contexts/$CTX/kv/$K1"; ! status_is 200; }
dead() { ! kill -0 "${PIDS[$1]}" 2>/dev/null; }
up() { req "$1" GET /admin-api/health "" noauth && status_is 200; }

req owner DELETE "/admin-api/groups/$NS/members/${ID[t0]}"
check "owner removes t0" status_is 200
check "t0 self-purged" wait_for 20 purged_log t0
check "t0 serves none of the namespace" gone t0
check "no value or key of the namespace in any file of t0's home (t0 running)" none_left t0

for i in 1 2 3; do
    t=t$i
    req owner DELETE "/admin-api/groups/$NS/members/${ID[$t]}"
    check "owner removes $t" status_is 200
    check "$t stopped at the seam after purge step $i" wait_for 20 dead "$t"
    check "$t's seam named step $i" grep -q "test seam: crashing after self-purge step $i" "$WORK/$t.log"
    unset "PIDS[$t]"
    run_node "$t" --mock-tee --bootstrap "$O"
    check "$t restarts" wait_for 15 up "$t"
    if [ "$i" -eq 1 ]; then
        # the marker survived: the start-up reconcile finishes the purge
        check "$t's restart finishes the purge" wait_for 20 purged_log "$t"
    fi
    check "$t serves none of the namespace after the restart" gone "$t"
    check "no value or key of the namespace in any file of $t's home ($t running)" none_left "$t"
    q() { sqlite3 "file:$WORK/$t/gov.db?mode=ro" "$1" 2>&1; }
    check "$t: no identity, op or marker of the namespace left in gov.db" \
        [ "$(q "select (select count(*) from identities where ns=x'$NS') + (select count(*) from ops where ns=x'$NS') + (select count(*) from pending_purge)")" = 0 ]
done
check "the owner still serves the values" eval "kv_is owner $CTX $K2 $V2"
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
