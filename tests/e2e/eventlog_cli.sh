#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# eventlog_cli.sh - `meroctl eventlog replay|diff|check` on the real CCEL cases of
# ../shared/testdata/ccel: registers and counts from each expected.txt, the quote case's
# check, a wrong register (exit 2), the expected diff, hex/base64 inputs, and bad input (exit 1).
set -u
M=${MERO_BIN:?}/meroctl
S=${MERO_SHARED:?}/testdata/ccel
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mero-eventlog.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }
run() { timeout 30 "$M" "$@"; }
kv() { sed -n "s/^$2=//p" "$1" | head -n1; }

# every case: replay --json equals expected.txt (rtmrN or computed_rtmrN), events, end offset
for c in gce-cos113-tdx-with-quote/ccel_data.bin gce-cos113-tdx-dupe-separator/ccel_data.bin \
    gce-cos113-tdx-dupe-separator/ccel_data_unpadded.bin \
    intel-edk2-ccel-unpadded/ccel_data_unpadded.bin dstack-ccel-sample/ccel_data.bin \
    trustee-ovmf/ccel_data.bin trustee-gcp/ccel_data.bin; do
    exp="$S/$(dirname "$c")/expected.txt"
    out=$(run eventlog replay --data "$S/$c" --json)
    rc=$?
    why=""
    [ $rc -eq 0 ] || why="exit $rc"
    for r in 0 1 2 3; do
        want=$(kv "$exp" "rtmr$r")
        [ -n "$want" ] || want=$(kv "$exp" "computed_rtmr$r")
        got=$(echo "$out" | jq -r ".rtmr$r")
        [ "$got" = "$want" ] || why="$why rtmr$r $got != $want"
    done
    [ "$(echo "$out" | jq -r .events)" = "$(kv "$exp" events)" ] || why="$why events"
    [ "$(echo "$out" | jq -r .end_offset)" = "$(kv "$exp" log_end_offset)" ] || why="$why end"
    if [ -z "$why" ]; then ok "replay $c"; else nok "replay $c" "$why"; fi
done

# the table is parsed and shown; a data file larger than the table's log area is refused
q=$S/gce-cos113-tdx-with-quote
out=$(run eventlog replay --data "$q/ccel_data.bin" --table "$q/ccel_table.bin" --json)
if [ "$(echo "$out" | jq -r '.table.laml, .table.cc_type, .table.lasa' | tr '\n' ' ')" = "262144 2 0xbedbf000 " ]; then
    ok "replay --table shows the table"
else nok "replay --table shows the table" "$out"; fi
e=$S/intel-edk2-ccel-unpadded
run eventlog replay --data "$q/ccel_data.bin" --table "$e/ccel_table.bin" >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "log larger than LAML: exit 1"; else nok "log larger than LAML: exit 1" "exit $rc"; fi

# text output names the registers and the duplicate separator
out=$(run eventlog replay --data "$S/gce-cos113-tdx-dupe-separator/ccel_data.bin")
if echo "$out" | grep -q '^rtmr0 a4de2df2' && echo "$out" | grep -q 'duplicate EV_SEPARATOR at seq 16 (offset 9484)'; then
    ok "replay text output and duplicate separator warning"
else nok "replay text output and duplicate separator warning" "$out"; fi

# check against the case's own quote: exit 0, all match
out=$(run eventlog check --data "$q/ccel_data.bin" --quote "$q/td_quote.bin" --json)
rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | jq -r '.match, ([.registers[].match] | all)' | tr '\n' ' ')" = "true true " ] &&
    [ "$(echo "$out" | jq -r '.registers[0].quote')" = "$(kv "$q/expected.txt" rtmr0)" ]; then
    ok "check with its quote: all match, exit 0"
else nok "check with its quote: all match, exit 0" "exit $rc $out"; fi

# the same quote against another log: mismatch on RTMR0/RTMR1, exit 2
out=$(run eventlog check --data "$S/gce-cos113-tdx-dupe-separator/ccel_data.bin" --quote "$q/td_quote.bin" --json)
rc=$?
if [ $rc -eq 2 ] && [ "$(echo "$out" | jq -r '[.registers[].match] | map(tostring) | join(",")')" = "false,false,true,true" ] &&
    [ "$(echo "$out" | jq -r '.registers[0].first_unexplained.seq')" = "1" ]; then
    ok "check with another log's quote: RTMR0/1 mismatch, exit 2"
else nok "check with another log's quote: RTMR0/1 mismatch, exit 2" "exit $rc $out"; fi

# with a reference log, the first record that departs from it, per register
out=$(run eventlog check --data "$S/gce-cos113-tdx-dupe-separator/ccel_data.bin" --quote "$q/td_quote.bin" \
    --reference "$q/ccel_data.bin" --json)
rc=$?
got=$(echo "$out" | jq -r '[.registers[] | "\(.reference_difference.b.seq // "-"):\(.reference_difference.fields // [] | join("+"))"] | join(" ")')
if [ $rc -eq 2 ] && [ "$got" = "2:digest 16:mr_index -: -:" ]; then
    ok "check --reference names seq 2 (RTMR0) and seq 16 (RTMR1)"
else nok "check --reference names seq 2 (RTMR0) and seq 16 (RTMR1)" "exit $rc [$got]"; fi

# wrong_rtmr0 of trustee-gcp, in a quote built from the other registers: exit 2 on RTMR0
g=$S/trustee-gcp
python3 - "$q/td_quote.bin" "$tmp/wrong.quote" "$(kv "$g/expected.txt" wrong_rtmr0)" \
    "$(kv "$g/expected.txt" rtmr1)" "$(kv "$g/expected.txt" rtmr2)" "$(kv "$g/expected.txt" rtmr3)" <<'PY'
import sys
q = bytearray(open(sys.argv[1], 'rb').read())
for i, h in enumerate(sys.argv[3:7]):
    q[376 + 48 * i:424 + 48 * i] = bytes.fromhex(h)
open(sys.argv[2], 'wb').write(bytes(q))
PY
out=$(run eventlog check --data "$g/ccel_data.bin" --quote "$tmp/wrong.quote")
rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q '^rtmr0 MISMATCH 3300980705adf09d.*304f$' &&
    [ "$(echo "$out" | grep -c ' match ')" = 3 ]; then
    ok "wrong_rtmr0 reported as RTMR0 mismatch, exit 2"
else nok "wrong_rtmr0 reported as RTMR0 mismatch, exit 2" "exit $rc $out"; fi

# hex and base64 inputs give the same answer
xxd -p "$q/td_quote.bin" | tr -d '\n' >"$tmp/quote.hex"
base64 -w 76 "$q/ccel_data.bin" >"$tmp/data.b64"
run eventlog check --data "$tmp/data.b64" --quote "$tmp/quote.hex" >/dev/null
rc=$?
if [ $rc -eq 0 ]; then ok "check with base64 log and hex quote"; else nok "check with base64 log and hex quote" "exit $rc"; fi

# the expected diff: seq 2 (digest) and 16 (mr_index) measured, 18 and 24 data only
out=$(run eventlog diff "$q/ccel_data.bin" "$S/gce-cos113-tdx-dupe-separator/ccel_data.bin" --json)
rc=$?
got=$(echo "$out" | jq -r '[.differences[] | "\(.a.seq):\(.kind):\(.fields | join("+")):\(.measured)"] | join(" ")')
want="2:changed:digest:true 16:changed:mr_index:true 18:event_data:event_data:false 24:event_data:event_data:false"
regs=$(echo "$out" | jq -r '[.registers[] | "\(.differ):\(.first_difference.a.seq // "-")"] | join(" ")')
if [ $rc -eq 2 ] && [ "$got" = "$want" ] && [ "$regs" = "true:2 true:16 false:- false:-" ]; then
    ok "diff gives the expected difference, exit 2"
else nok "diff gives the expected difference, exit 2" "exit $rc got [$got] regs [$regs]"; fi

# identical logs (padded vs unpadded): exit 0, no differences
d=$S/gce-cos113-tdx-dupe-separator
out=$(run eventlog diff "$d/ccel_data.bin" "$d/ccel_data_unpadded.bin" --json)
rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | jq '.differences | length')" = 0 ]; then
    ok "diff of the same records: exit 0"
else nok "diff of the same records: exit 0" "exit $rc"; fi

# unusable input: exit 1 with a reason naming the offset
head -c 1000 "$q/ccel_data.bin" >"$tmp/trunc.bin"
err=$(run eventlog replay --data "$tmp/trunc.bin" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 1 ] && echo "$err" | grep -q 'offset'; then ok "truncated log: exit 1, names the offset"
else nok "truncated log: exit 1, names the offset" "exit $rc $err"; fi
run eventlog check --data "$q/ccel_data.bin" --quote "$q/ccel_table.bin" >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "check with a non-quote: exit 1"; else nok "check with a non-quote: exit 1" "exit $rc"; fi
run eventlog replay --data "$tmp/none" >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "missing file: exit 1"; else nok "missing file: exit 1" "exit $rc"; fi
run eventlog replay >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "no --data: usage, exit 1"; else nok "no --data: usage, exit 1" "exit $rc"; fi
echo "1..$n"
