#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_corrupt_db.sh - issue 21 item 7: damaged databases are never served as if nothing
# happened. From one populated home (a namespace, a context, 40 keys), copies are damaged at
# deterministic offsets: a vanished or zero-length node.db or gov.db and a node.db or gov.db
# whose b-tree pages are overwritten make `merod run` refuse to start (exit 2) with a message
# naming the file and what to do, and `merod check` exit 2; 200 flipped bytes in node.db never
# yield another key's value (each key reads back right or fails); damaged derived rows or a
# flipped op byte in gov.db are found by `merod check`; a flipped byte inside a stored value
# (which quick_check cannot see), or another key's value (and delta) written into a row, is a
# 500 with a log line, and `merod check` names it; an intact home checks ok (exit 0).
. "$(dirname "$0")/node_lib.bash"

start_node a
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
for i in $(seq -w 1 40); do
    req a PUT "/admin-api/contexts/$CTX/kv/key$i" "{\"value\":\"value-$i-abcdefghijklmnopqrstuvwxyz\"}"
done
check "40 keys written" kv_is a "$CTX" key40 "value-40-abcdefghijklmnopqrstuvwxyz"
stop_node a
H=$WORK/a
check "the stopped node left no WAL behind" test ! -e "$H/node.db-wal"

"$BIN/merod" check >/dev/null 2>&1
check "check without --home: exit 1" test $? -eq 1
"$BIN/merod" check --home "$H" --bogus >/dev/null 2>&1
check "check with an unknown option: exit 1" test $? -eq 1
OUT=$("$BIN/merod" check --home "$H" 2>&1)
RC=$?
check "check: an intact home is ok (exit 0)" eval '[ $RC -eq 0 ] && grep -q "40 values verified" <<<"$OUT"'

# copy NAME: a fresh copy of the populated home
copy() { rm -rf "$WORK/$1" && cp -a "$H" "$WORK/$1"; }
# refuses NAME TEXT: `merod run` exits 2 and its message contains TEXT
refuses() {
    OUT=$(timeout 20 "$BIN/merod" run --home "$WORK/$1" 2>&1)
    RC=$?
    [ $RC -eq 2 ] && grep -qF -- "$2" <<<"$OUT" || { echo "# rc=$RC out=$OUT"; return 1; }
}
checks_bad() {
    OUT=$("$BIN/merod" check --home "$WORK/$1" 2>&1)
    RC=$?
    [ $RC -eq 2 ] && grep -qF -- "$2" <<<"$OUT" || { echo "# rc=$RC out=$OUT"; return 1; }
}
# flip FILE OFFSET...: xor each byte with 0xff (MASK=1: with 0x01, so a letter stays a letter)
flip() {
    python3 - "${MASK:-255}" "$@" <<'PY'
import sys
m = int(sys.argv[1])
p = sys.argv[2]
b = bytearray(open(p, 'rb').read())
for o in sys.argv[3:]:
    b[int(o)] ^= m
open(p, 'wb').write(b)
PY
}

copy z
: >"$WORK/z/node.db"
check "zero-length node.db: run refuses" refuses z "node.db is empty (0 bytes)"
check "zero-length node.db: not recreated" test ! -s "$WORK/z/node.db"
check "zero-length node.db: check exit 2" checks_bad z "node.db is empty"

copy m
rm -f "$WORK/m/node.db"
check "vanished node.db: run refuses, says restore" refuses m "node.db is missing: merod init created it"
check "vanished node.db: not recreated" test ! -e "$WORK/m/node.db"

copy g
rm -f "$WORK/g/gov.db"
check "vanished gov.db: run refuses" refuses g "gov.db is missing: merod init created it"
check "vanished gov.db: not recreated" test ! -e "$WORK/g/gov.db"
check "vanished gov.db: check exit 2" checks_bad g "gov.db is missing"

copy ge
: >"$WORK/ge/gov.db"
check "zero-length gov.db: run refuses" refuses ge "gov.db is empty (0 bytes)"

# b-tree page headers (first bytes of pages 2..5): SQLite's quick_check sees these
copy nb
flip "$WORK/nb/node.db" 4096 4097 8192 8193 12288 12289 16384 16385
check "node.db page headers flipped: run refuses, says what to do" refuses nb "node.db is corrupted"
check "node.db page headers flipped: message points at merod check" refuses nb "merod check --home"
check "node.db page headers flipped: check exit 2" checks_bad nb "node.db: "

copy gb
flip "$WORK/gb/gov.db" 4096 4097 8192 8193 12288 12289 16384 16385
check "gov.db page headers flipped: run refuses" refuses gb "gov.db is corrupted"
check "gov.db page headers flipped: check exit 2" checks_bad gb "gov.db: "

copy gh
flip "$WORK/gh/gov.db" 0 1 2 3
check "gov.db header flipped: run refuses" refuses gh "gov.db is corrupted"

# payload damage in gov.db that SQLite cannot see: a derived row, and a byte of an op's signature
copy gd
sqlite3 "$WORK/gd/gov.db" "delete from contexts"
check "gov.db derived rows damaged: check exit 2, names the replay" checks_bad gd "derived tables differ from a replay of the op log"
# issue 32 item 6: a member's role edited in the derived table while the node was stopped is
# found at start without a replay (the seal of the last clean stop) and the start refused
check "the clean stop sealed gov.db's derived tables" \
    eval '[ "$(sqlite3 "$H/gov.db" "select count(*) from derived_seal")" = 1 ]'
copy gr
sqlite3 "$WORK/gr/gov.db" "update members set role = 2"
check "a role edited while stopped: run refuses (exit 2), names the seal and the fix" \
    eval 'refuses gr "differ from the seal written at the last clean stop" && grep -qF "merod check --home" <<<"$OUT"'
check "a role edited while stopped: check exit 2" checks_bad gr "derived tables differ from a replay"
# no seal (the last stop was a crash): the start compares with a replay instead
copy gc
sqlite3 "$WORK/gc/gov.db" "delete from derived_seal; update members set role = 2"
check "no seal and a role edited: run refuses after a replay" refuses gc "derived tables differ from a replay"
copy go
sqlite3 "$WORK/go/gov.db" "delete from derived_seal"
run_node go
check "no seal, intact: the node starts, checked against a replay" \
    grep -q "derived tables checked against a replay" "$WORK/go.log"
stop_node go
check "... and seals at its clean stop" \
    eval '[ "$(sqlite3 "$WORK/go/gov.db" "select count(*) from derived_seal")" = 1 ]'
run_node go
check "a sealed start checks the seal" grep -q "checked against the seal" "$WORK/go.log"
stop_node go
copy gs
SIG=$(sqlite3 "$WORK/gs/gov.db" "select hex(substr(bytes, length(bytes) - 31, 16)) from ops order by seq desc limit 1")
OFF=$(python3 -c 'import sys; print(open(sys.argv[1],"rb").read().find(bytes.fromhex(sys.argv[2])))' "$WORK/gs/gov.db" "$SIG")
check "an op's signature bytes are found in gov.db" test "$OFF" -gt 0
flip "$WORK/gs/gov.db" "$OFF"
check "gov.db op byte flipped: check exit 2, names the op" checks_bad gs "gov.db: op log: op #"

# one byte inside a stored value: a cell payload SQLite does not checksum
copy v
OFF=$(python3 -c 'import sys; print(open(sys.argv[1],"rb").read().find(b"value-17-abcdefghij") + 12)' "$WORK/v/node.db")
check "the value's bytes are found in node.db" test "$OFF" -gt 12
MASK=1 flip "$WORK/v/node.db" "$OFF" # 'm' becomes 'l': still text, another value
run_node v
req v GET "/admin-api/contexts/$CTX/kv/key17"
check "flipped value: 500, never the damaged value" err_has 500 "stored state is damaged"
check "flipped value: a log line says so" grep -q "node.db: a stored value failed verification" "$WORK/v.log"
check "other keys still read right" kv_is v "$CTX" key18 "value-18-abcdefghijklmnopqrstuvwxyz"
stop_node v
check "flipped value: check exit 2 and names it" checks_bad v "differs from its signed delta"

# another key's value put in a row (what 200 flipped bytes did to 4 keys): quick_check passes,
# the node starts, and the read refuses instead of answering the other key's value
copy w
sqlite3 "$WORK/w/node.db" "update ctx_kv set v = (select v from ctx_kv where k = 'key02') where k = 'key01'; update ctx_kv set v = (select v from ctx_kv where k = 'key04'), hash = (select hash from ctx_kv where k = 'key04') where k = 'key03'"
run_node w
req w GET "/admin-api/contexts/$CTX/kv/key01"
check "another key's value in a row: 500, not key02's value" err_has 500 "stored state is damaged"
req w GET "/admin-api/contexts/$CTX/kv/key03"
check "another key's value and delta in a row: 500, not key04's value" err_has 500 "stored state is damaged"
check "an untouched key still reads right" kv_is w "$CTX" key02 "value-02-abcdefghijklmnopqrstuvwxyz"
stop_node w
check "swapped values: check exit 2" checks_bad w "differs from its signed delta"

# 200 flipped bytes spread over node.db: start is refused, or every key reads back its own
# value or fails - never another key's value with 200
copy s
SIZE=$(stat -c %s "$WORK/s/node.db")
flip "$WORK/s/node.db" $(python3 -c "print(' '.join(str(4096 + (i * 7919) % ($SIZE - 4096)) for i in range(200)))")
timeout 20 "$BIN/merod" run --home "$WORK/s" >"$WORK/s.log" 2>&1 &
PIDS[s]=$!
for _ in $(seq 100); do
    [ -s "$WORK/s/run.json" ] && break
    kill -0 "${PIDS[s]}" 2>/dev/null || break
    sleep 0.1
done
wrong=0
if [ -s "$WORK/s/run.json" ]; then
    URL[s]=$(jq -r .apiUrl "$WORK/s/run.json")
    TOKEN[s]=$(tr -d '\n' <"$WORK/s/admin-token")
    for i in $(seq -w 1 40); do
        req s GET "/admin-api/contexts/$CTX/kv/key$i"
        if status_is 200 && ! jq_is .data.value "value-$i-abcdefghijklmnopqrstuvwxyz"; then
            wrong=$((wrong + 1))
        fi
    done
    stop_node s
else
    wait "${PIDS[s]}"
    RC=$?
    unset "PIDS[s]"
    check "200 flipped bytes: a refused start exits 2" test $RC -eq 2
fi
check "200 flipped bytes: no key answers another value with 200" test $wrong -eq 0
check "200 flipped bytes: check exit 2" checks_bad s "node.db"
finish
