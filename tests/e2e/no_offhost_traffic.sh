#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# no_offhost_traffic.sh - issue 32 item 1, "a mock node talks to the outside world": merod run
# --mock-tee used to resolve metadata.google.internal at start (a DNS query to the machine's
# resolver). Two --mock-tee nodes, the second bootstrapping from the first, exchange a
# namespace, a context and a key (meroctl writes and reads it), each process under
# `strace -f -e trace=connect,sendto,sendmsg,sendmmsg`; every traced address must be on the
# host (127.0.0.0/8, ::1, AF_UNIX, netlink) and no name lookup may be made
# (tests/e2e/offhost_trace.py prints the offending lines). The parser is first shown to flag
# canned off-host lines, so the check can fail without a packet leaving. Skipped only when
# strace cannot ptrace here. The rule itself: docs/node.md "TEE detection".
. "$(dirname "$0")/node_lib.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
PARSE=$HERE/offhost_trace.py
unset MERO_GCP_METADATA_URL # the default: no metadata server configured
declare -A TRACERS

# 1. the parser flags what leaves the host and nothing else (canned strace 6 lines)
offhost() { python3 "$PARSE" "$@"; }
flags() { # DESCRIPTION LINE: the parser flags LINE
    printf '%s\n' "$2" >"$WORK/canned.trace"
    if OUT=$(offhost "$WORK/canned.trace"); then
        nok "parser flags $1" "not flagged: $2"
    elif ! grep -qF "$2" <<<"$OUT"; then
        nok "parser flags $1" "the offending line is not printed: $OUT"
    else
        ok "parser flags $1"
    fi
}
flags "the bug: a DNS query to the machine's resolver" \
    '10979 connect(25, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0'
flags "a TCP connect to TEST-NET" \
    '[pid 42] connect(7, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}, 16) = -1 EINPROGRESS (Operation now in progress)'
flags "a datagram sent to an address off the host" \
    '42 sendto(4, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("198.51.100.7")}, 16) = 1'
flags "an IPv6 connect off the host" \
    '42 connect(3, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)'
flags "an IPv4-mapped address off the host" \
    '42 connect(3, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:192.0.2.1", &sin6_addr), sin6_scope_id=0}, 28) = 0'
flags "a name lookup through a loopback stub resolver (127.0.0.53:53)" \
    '42 sendto(5, "\1\2", 2, MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 2'
flags "a sendmsg whose message is addressed off the host" \
    '42 sendmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("203.0.113.9")}, msg_namelen=16, msg_iov=[{iov_base="x", iov_len=1}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 1'
flags "the second message of a sendmmsg" \
    '42 sendmmsg(5, [{msg_hdr={msg_name={sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16}, msg_len=1}, {msg_hdr={msg_name={sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("192.0.2.1")}, msg_namelen=16}, msg_len=1}], 2, 0) = 2'
flags "another address family" \
    '42 connect(3, {sa_family=AF_PACKET, sll_protocol=htons(ETH_P_ALL), sll_ifindex=2}, 20) = 0'
flags "a connect whose address strace could not decode" '42 connect(3, 0x7ffc1234, 16) = -1 EFAULT (Bad address)'
cat >"$WORK/good.trace" <<'EOF'
42 connect(25, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
42 connect(7, {sa_family=AF_INET, sin_port=htons(40735), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)
[pid 43] connect(7, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.3.2.1")}, 16) = 0
42 connect(4, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED (Connection refused)
42 sendto(3, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 1
42 sendto(24, "\1", 1, MSG_NOSIGNAL, NULL, 0) = 1
42 sendmsg(5, {msg_name={sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, msg_namelen=12, msg_iov=[{iov_base="x", iov_len=1}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 20
42 sendmsg(9, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="connect(", iov_len=8}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_NOSIGNAL) = 8
42 connect(9, {sa_family=AF_UNSPEC, sa_data="\0\0\0\0\0\0\0\0\0\0\0\0\0\0"}, 16) = 0
42 <... connect resumed>) = 0
42 +++ exited with 0 +++
EOF
check "parser passes loopback, AF_UNIX, netlink and connected-socket sends" offhost "$WORK/good.trace"

# 2. live: can strace trace here? (a container without CAP_SYS_PTRACE, a seccomp profile)
# LeakSanitizer cannot run under ptrace (make asan): the traced processes run without it
STRACE=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    strace -f -qq -e signal=none -e trace=connect,sendto,sendmsg,sendmmsg)
if ! command -v strace >/dev/null; then
    nok "strace is installed (scripts/deps.sh)" "no strace on PATH"
    finish
    exit
fi
if ! PT=$("${STRACE[@]}" -o /dev/null true 2>&1); then
    TAPN=$((TAPN + 1))
    echo "ok $TAPN - mock nodes under strace # SKIP strace cannot ptrace here: ${PT//$'\n'/ }"
    finish
    exit
fi

# traced_node NAME [merod run flags...]: merod run under strace, the trace in $WORK/NAME.trace
# (PIDS[NAME] is merod itself: sh records its pid, then execs merod)
traced_node() {
    local n=$1
    shift
    rm -f "$WORK/$n/run.json" "$WORK/$n.pid"
    "${STRACE[@]}" -o "$WORK/$n.trace" sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' \
        "$WORK/$n.pid" "$BIN/merod" run --home "$WORK/$n" "$@" >>"$WORK/$n.log" 2>&1 &
    TRACERS[$n]=$!
    for _ in $(seq 200); do
        [ -s "$WORK/$n.pid" ] && [ -s "$WORK/$n/run.json" ] && break
        sleep 0.1
    done
    PIDS[$n]=$(cat "$WORK/$n.pid")
    URL[$n]=$(jq -r .apiUrl "$WORK/$n/run.json")
    TOKEN[$n]=$(tr -d '\n' <"$WORK/$n/admin-token")
}
# traced NAME CMD...: a command under strace, the trace in $WORK/NAME.trace
traced() {
    local n=$1
    shift
    "${STRACE[@]}" -A -o "$WORK/$n.trace" "$@"
}
ctl() { # NODE TRACE-NAME meroctl-args...
    local node=$1 t=$2
    shift 2
    traced "$t" "$BIN/meroctl" --node "${URL[$node]}" --token-file "$WORK/$node/admin-token" "$@"
}

init_node a
traced_node a --mock-tee
init_node b
traced_node b --mock-tee --bootstrap "$(p2p_addr a)"
check "both traced nodes answer" eval 'req a GET /admin-api/node && status_is 200 && req b GET /admin-api/node && status_is 200'

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req b POST "/admin-api/namespaces/$NS/join" '{}'
IDB=$(jq -r .data.identity <<<"$RESP")
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
check "a adds b as Member" status_is 200
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
check "meroctl (traced) writes a key on a" ctl a ctl-put -q kv put "$CTX" k "from a"
b_reads() { [ "$(ctl b ctl-get --json kv get "$CTX" k 2>/dev/null | jq -r .value)" = "from a" ]; }
check "meroctl (traced) reads it on b: the two nodes exchanged it" wait_for 20 b_reads

logged() { grep -qF "$2" "$WORK/$1.log"; }
check "a mock node logs that it asks no metadata server, and why" \
    logged a "tee/info: cloud metadata server not asked: a mock node never probes a cloud metadata service"
check "its host facts are gathered (unknown)" wait_for 10 logged a "tee/info: cloud provider unknown"
check "b's too" wait_for 10 logged b "tee/info: cloud provider unknown"

for n in a b; do
    stop_node "$n"
    wait "${TRACERS[$n]}" 2>/dev/null # strace has written everything
done
# the trace saw the traffic it judges: b dialled a and meroctl reached the API, on loopback
check "the traces hold b's loopback connections (strace -f followed merod's threads)" \
    grep -qE 'connect\([0-9]+, \{sa_family=AF_INET, sin_port=htons\([0-9]+\), sin_addr=inet_addr\("127\.' \
    "$WORK/b.trace"
check "the traces hold meroctl's connection to the API" grep -q 'sa_family=AF_INET' "$WORK/ctl-put.trace"
if OUT=$(offhost "$WORK"/a.trace "$WORK"/b.trace "$WORK"/ctl-*.trace); then
    ok "no traced connection or datagram leaves the host (merod a, merod b, meroctl)"
else
    nok "no traced connection or datagram leaves the host (merod a, merod b, meroctl)" "see below"
    sed 's/^/# /' <<<"$OUT"
fi
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
