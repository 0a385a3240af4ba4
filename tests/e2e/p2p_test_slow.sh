#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# p2p_test_slow.sh - mero_p2p_test's documented options (issue 32 item 9): `--slow-ms N` used to
# be refused as an unknown option although the tool's header documents it. With it, each echo
# answer waits N ms (a slow peer for timeout tests); without it, answers come at once; a bad
# value exits 1; quit with an answer still waiting ends the tool at once. Prints TAP.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${MERO_BIN:-$ROOT/build/release/bin}
. "$ROOT/tests/interop/lib/p2p.bash"
p2p_init
C="$BIN/mero_p2p_test"
ECHO=/mero/test/echo/1

"$C" --slow-ms x </dev/null >/dev/null 2>"$T/bad.err"
rc=$?
check "--slow-ms with a value that is no number exits 1" test "$rc" = 1
check "... saying what it takes" grep -q -- '--slow-ms takes milliseconds' "$T/bad.err"
"$C" --slow-ms 600001 </dev/null >/dev/null 2>&1
check "--slow-ms over 600000 exits 1" test "$?" = 1
"$C" --bogus 1 </dev/null >/dev/null 2>&1
check "an unknown option still exits 1" test "$?" = 1

p2p_start slow "$C" --listen /ip4/127.0.0.1/tcp/0 --echo "$ECHO" --slow-ms 3000
p2p_start fast "$C" --listen /ip4/127.0.0.1/tcp/0 --echo "$ECHO"
p2p_start client "$C" --listen /ip4/127.0.0.1/tcp/0
for n in slow fast client; do p2p_wait "$n" '^listen ' 10; done
check "--slow-ms 3000 is accepted (the tool listens)" grep -q '^listen ' "$T/slow.out"
# time REPLY_PEER: milliseconds from the request to its reply on the client
ask() {
    local peer=$1 text=$2 t0 t1
    p2p_send client "addr $(p2p_field "$peer" listen)"
    t0=$(date +%s%3N)
    p2p_send client "req $(p2p_field "$peer" id) $ECHO $text"
    p2p_wait client "^reply ok echo:$text\$" 20 || { echo -1; return; }
    t1=$(date +%s%3N)
    echo $((t1 - t0))
}
ms=$(ask fast quick)
check "without --slow-ms the echo answers at once (${ms} ms)" test "$ms" -ge 0 -a "$ms" -lt 2500
ms=$(ask slow late)
check "with --slow-ms 3000 the echo answers after 3 s (${ms} ms)" test "$ms" -ge 3000
check "... and the request was served when it arrived" grep -q "^served $ECHO .* late\$" "$T/slow.out"
# a request still waiting at quit: its answer is dropped and the tool ends at once
p2p_send client "req $(p2p_field slow id) $ECHO pending"
p2p_wait slow "^served $ECHO .* pending\$" 10
p2p_send slow quit
P=P2P_PID_slow
gone=no
for _ in $(seq 20); do kill -0 "${!P}" 2>/dev/null || { gone=yes; break; }; sleep 0.1; done
check "quit with an answer waiting ends the tool within 2 s" test "$gone" = yes
check "... and the waiting request is answered with an error" p2p_wait client '^reply err ' 10
p2p_quit fast
p2p_quit client
clean() { ! grep -qE 'Sanitizer|runtime error' "$T"/*.err; }
check "the tools exit cleanly" clean
echo "1..$TAPN"
[ "$FAILS" -eq 0 ]
