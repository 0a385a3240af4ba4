#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_disk_errors.sh - issue 21 item 11 (disk part): a disk failure is reported as what it
# is. A data directory on a read-only bind mount makes `merod run` refuse with the errno text
# for node.db (not "cannot create node.db", the file exists); on a full disk (a 4 MiB tmpfs
# filled up) creating a namespace answers 500 naming the full disk (not "no identity for this
# namespace") and works again once space is freed; `merod init` there names the errno.
# Needs root and mount(8); where mounting is not possible the cases are skipped (TAP SKIP).
. "$(dirname "$0")/node_lib.bash"

MOUNTS=()
RESP= STATUS=
teardown() {
    for n in "${!PIDS[@]}"; do kill -TERM "${PIDS[$n]}" 2>/dev/null; done
    for n in "${!PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "${PIDS[$n]}" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "${PIDS[$n]}" 2>/dev/null
    done
    PIDS=()
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}"; done
    cleanup
}
trap teardown EXIT
skip() { TAPN=$((TAPN + 1)); echo "ok $TAPN - $1 # SKIP $2"; }

# read-only data directory
init_node ro
H=$WORK/ro
if mount --bind "$H" "$H" 2>/dev/null; then
    MOUNTS+=("$H")
    if mount -o remount,bind,ro "$H" 2>/dev/null && ! touch "$H/probe" 2>/dev/null; then
        OUT=$(timeout 20 "$BIN/merod" run --home "$H" 2>&1)
        RC=$?
        check "read-only home: run refuses (exit 2)" test $RC -eq 2
        check "read-only home: the message names node.db and the errno text" grep -q "cannot open $H/node.db for writing: Read-only file system" <<<"$OUT"
        check "read-only home: not 'cannot create' a file that exists" eval '! grep -q "cannot create" <<<"$OUT"'
    else
        skip "read-only home" "cannot remount read-only here"
    fi
else
    skip "read-only home" "bind mounts not available"
fi

# full disk
M=$WORK/full
mkdir -p "$M"
if mount -t tmpfs -o size=4m tmpfs "$M" 2>/dev/null; then
    MOUNTS+=("$M")
    HOME_OF[f]=$M/f
    "$BIN/merod" init --home "$M/f" --name f --api 127.0.0.1:0 --listen /ip4/127.0.0.1/tcp/0 >/dev/null
    # run_node uses $WORK/NAME: link the home there
    ln -s "$M/f" "$WORK/f"
    run_node f
    req f POST /admin-api/namespaces '{}'
    check "full disk: a namespace is created while there is room" status_is 200
    dd if=/dev/zero of="$M/fill" bs=16k 2>/dev/null
    check "full disk: the filesystem is full" test "$(df --output=avail "$M" | tail -1)" -eq 0
    req f POST /admin-api/namespaces '{}'
    check "full disk: namespace creation answers 500 naming the full disk" err_has 500 "disk is full"
    check "full disk: not 'no identity for this namespace'" eval '! msg_has "no identity"'
    OUT=$("$BIN/merod" init --home "$M/g" --api 127.0.0.1:0 2>&1)
    RC=$?
    check "full disk: init fails with the errno text" eval '[ $RC -eq 2 ] && grep -q "No space left on device" <<<"$OUT"'
    rm -f "$M/fill"
    req f POST /admin-api/namespaces '{}'
    check "full disk: works again once space is freed" status_is 200
    NS=$(jq -r .data.namespaceId <<<"$RESP")
    req f GET /admin-api/node
    check "full disk: the failed namespace left nothing behind" jq_is '.data.namespaces|length' 2
    stop_node f
else
    skip "full disk" "cannot mount a tmpfs here"
fi
finish
