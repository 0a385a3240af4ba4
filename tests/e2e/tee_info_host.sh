#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tee_info_host.sh - issue 16 "/tee/info reports what the host really is": the cloud provider
# and OS image come from the GCP metadata server (a local stand-in, metadata_server.py, reached
# through MERO_GCP_METADATA_URL; asked once per process with `Metadata-Flavor: Google`), and are
# "unknown" when it cannot be reached; the MRTD is the mock quote's (all zeros) under
# --mock-tee and, on a TDX host, the one of the quote made at start-up (a fake configfs-tsm
# tree, MERO_TSM_ROOT, whose entry for merod's pid holds a real quote). The route answers
# while the facts are gathered (never waits for them). Issue 32: a mock node asks only a
# MERO_GCP_METADATA_URL whose host is a numeric loopback address (not "localhost").
. "$(dirname "$0")/node_lib.bash"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
Q=$ROOT/../shared/testdata/tdx/parse-only/gcp-cos-v4/quote.bin
IMG=merotee-ubuntu-questing-25-10-locked-read-only-2-3-87
ZERO96=$(printf '%096d' 0)

python3 "$(dirname "$0")/metadata_server.py" "projects/mero-tee/global/images/$IMG" >"$WORK/meta.out" 2>&1 &
MPID=$!
trap 'kill $MPID 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do [ -s "$WORK/meta.out" ] && break; sleep 0.1; done
META=http://127.0.0.1:$(head -1 "$WORK/meta.out")
count() { curl -s "$META/count"; }
gathered() { grep -q "tee/info: cloud provider" "$WORK/$1.log"; }
info() { req "$1" GET /admin-api/tee/info "" noauth && status_is 200; }

# 1. a mock TEE on "GCP"
init_node g
MERO_GCP_METADATA_URL=$META run_node g --mock-tee
check "g gathered its host facts" wait_for 10 gathered g
info g
check "mock on GCP: cloudProvider gcp" jq_is .data.cloudProvider gcp
check "mock on GCP: osImage is the image's last path segment" jq_is .data.osImage "$IMG"
check "mock: the mock quote's MRTD (zeros)" jq_is .data.mrtd "$ZERO96"
n1=$(count)
check "the metadata server was asked (with the Metadata-Flavor header)" [ "$n1" -ge 1 ]
info g
info g
check "the facts are cached: no new metadata request per GET" [ "$(count)" = "$n1" ]

# 1b. issue 32: a mock node asks only a numeric loopback address, never a name (even one that
# would reach the same server): nothing asked, the facts stay "unknown"
init_node m
MERO_GCP_METADATA_URL=http://localhost:${META##*:} run_node m --mock-tee
check "m gathered its host facts" wait_for 10 gathered m
check "mock with a named metadata URL: logs that it asks nothing, and why" grep -qF \
    "cloud metadata server not asked: a mock node asks MERO_GCP_METADATA_URL only when its host is a numeric loopback address" \
    "$WORK/m.log"
info m
check "mock with a named metadata URL: cloudProvider unknown" jq_is .data.cloudProvider unknown
check "mock with a named metadata URL: the server was not asked" [ "$(count)" = "$n1" ]
check "g (numeric loopback URL) logged that it asks it" grep -qF \
    "cloud metadata server asked: a mock node asks MERO_GCP_METADATA_URL, a numeric loopback address" \
    "$WORK/g.log"

# 2. no metadata server: "unknown"
CLOSED=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
init_node u
MERO_GCP_METADATA_URL=http://127.0.0.1:$CLOSED run_node u --mock-tee
check "u answers /tee/info at once" info u
check "u gathered its host facts" wait_for 10 gathered u
info u
check "no metadata server: cloudProvider unknown" jq_is .data.cloudProvider unknown
check "no metadata server: osImage unknown" jq_is .data.osImage unknown
check "no metadata server, mock: zero MRTD" jq_is .data.mrtd "$ZERO96"

# 3. a TDX host (fake configfs-tsm): the start-up quote's MRTD. The entry name carries merod's
# pid, so merod is started from a subshell that waits for the entry and then execs it.
mkdir -p "$WORK/tsm"
init_node r
(
    while [ ! -e "$WORK/go" ]; do sleep 0.05; done
    MERO_TSM_ROOT=$WORK/tsm MERO_GCP_METADATA_URL=$META exec "$BIN/merod" run --home "$WORK/r"
) >>"$WORK/r.log" 2>&1 &
PIDS[r]=$!
MRTD=$(python3 - "$Q" "$WORK/tsm" "${PIDS[r]}" <<'PY'
import hashlib, os, sys
q = bytearray(open(sys.argv[1], 'rb').read())
rd = bytes(64)  # the start-up quote's report data: 64 zero bytes
q[48 + 520:48 + 584] = rd  # v4 header (48) + TD report body: report_data at 520
d = os.path.join(sys.argv[2], "mero-%s-%s" % (hashlib.sha256(rd).hexdigest()[:16], sys.argv[3]))
os.mkdir(d)
for name, data in (("provider", b"tdx_guest\n"), ("generation", b"1\n"), ("inblob", b""), ("outblob", bytes(q))):
    open(os.path.join(d, name), "wb").write(data)
print(q[48 + 136:48 + 184].hex())  # MRTD: body offset 136
PY
)
touch "$WORK/go"
for _ in $(seq 100); do [ -s "$WORK/r/run.json" ] && break; sleep 0.1; done
URL[r]=$(jq -r .apiUrl "$WORK/r/run.json")
check "the quote's MRTD is not all zeros (the check can fail)" [ "$MRTD" != "$ZERO96" ]
check "r gathered its host facts" wait_for 10 gathered r
info r
check "TDX host: the MRTD of the start-up quote" jq_is .data.mrtd "$MRTD"
check "TDX host on GCP: cloudProvider gcp" jq_is .data.cloudProvider gcp
check "TDX host on GCP: osImage" jq_is .data.osImage "$IMG"
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
