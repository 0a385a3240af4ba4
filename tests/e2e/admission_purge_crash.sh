#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission_purge_crash.sh - issue 21 item 3: a crash right after our own TEE eviction
# committed, before any event handler ran (the test seam MERO_TEST_CRASH_AT=
# after_removal_commit under --test), must still end in the self-purge at the next start:
# the pending marker is written in the removal's own transaction. After the restart the
# evicted node holds no op, identity, group key or context state of the namespace in gov.db
# or node.db.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
init_node t1
MERO_TEST_CRASH_AT=after_removal_commit run_node t1 --mock-tee --test --bootstrap "$O"

owner_ns_with_tee_t1

G="$WORK/t1/gov.db"
D="$WORK/t1/node.db"
q() { sqlite3 "file:$1?mode=ro" "$2" 2>&1; }
check "before: t1 holds the namespace identity" [ "$(q "$G" "select count(*) from identities where ns=x'$NS'")" = 1 ]
check "before: t1 holds the context's value" [ "$(q "$D" "select count(*) from ctx_kv where context=x'$CTX'")" = 1 ]

req owner DELETE "/admin-api/groups/$NS/members/$T1"
check "owner removes the TEE" status_is 200
crashed() { ! kill -0 "${PIDS[t1]}" 2>/dev/null; }
check "t1 crashed at the seam" wait_for 20 crashed
check "the seam fired after the removal commit" grep -q "test seam: crashing after the removal commit" "$WORK/t1.log"
check "no purge ran before the crash" eval '! grep -q "self-purge: evicted TEE" "$WORK/t1.log"'
check "the removal is committed with its marker" [ "$(q "$G" "select count(*) from pending_purge where ns=x'$NS'")" = 1 ]
unset "PIDS[t1]"

run_node t1 --mock-tee --bootstrap "$O"
check "the restart finishes the purge" wait_for 15 grep -q "self-purge: evicted TEE; namespace" "$WORK/t1.log"
gone() { req t1 GET "/admin-api/contexts/$CTX/kv/k"; ! status_is 200; }
check "t1 no longer serves the namespace's data" gone
stop_node t1
check "no op of the namespace left" [ "$(q "$G" "select count(*) from ops where ns=x'$NS'")" = 0 ]
check "no identity left" [ "$(q "$G" "select count(*) from identities where ns=x'$NS'")" = 0 ]
check "no group key left" [ "$(q "$G" "select count(*) from group_keys where grp=x'$NS'")" = 0 ]
check "no marker left" [ "$(q "$G" "select count(*) from pending_purge")" = 0 ]
check "no context state left in node.db" [ "$(q "$D" "select count(*) from ctx_kv where context=x'$CTX'")" = 0 ]
check "no context delta left in node.db" [ "$(q "$D" "select count(*) from ctx_delta where context=x'$CTX'")" = 0 ]
stop_node owner
checks_ok() {
    local out
    out=$("$BIN/merod" check --home "$WORK/$1" 2>&1) || { echo "$out" | sed 's/^/# /'; return 1; }
}
check "merod check: the owner's home (TEE admission, removal, rotation) is intact" checks_ok owner
check "merod check: the purged node's home is intact" checks_ok t1
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
