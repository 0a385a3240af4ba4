# SPDX-License-Identifier: Apache-2.0
# p2p.bash - helpers for the network integration tests: start line-protocol peers
# (build/*/bin/mero_p2p_test or tests/js/p2p_peer.mjs) with a FIFO on stdin and a log on stdout,
# send them commands, wait for event lines, stop them. Source it; call p2p_init first.
# TAP helpers: ok/nok counters with `check NAME CMD...`.

p2p_init() {
    T=$(mktemp -d "${TMPDIR:-/tmp}/mero-p2p.XXXXXX")
    P2P_NAMES=()
    TAPN=0
    FAILS=0
    trap p2p_cleanup EXIT
    trap "" PIPE
}

# p2p_js_deps: install the js peers' npm packages (tests/js) once, if they are not there yet
p2p_js_deps() {
    if [ ! -d "$ROOT/tests/js/node_modules/libp2p" ]; then
        (cd "$ROOT/tests/js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) || true
    fi
}

p2p_cleanup() {
    local n
    for n in "${P2P_NAMES[@]}"; do
        p2p_kill "$n"
    done
    if [ "${KEEP_TMP:-0}" != 1 ]; then
        rm -rf "$T"
    fi
}

# p2p_start NAME CMD...   (stdout -> $T/NAME.out, stderr -> $T/NAME.err)
p2p_start() {
    local name=$1
    shift
    mkfifo "$T/$name.in"
    "$@" <"$T/$name.in" >"$T/$name.out" 2>"$T/$name.err" &
    eval "P2P_PID_$name=$!"
    local fd
    exec {fd}>"$T/$name.in"
    eval "P2P_FD_$name=$fd"
    P2P_NAMES+=("$name")
}

p2p_send() {
    local fdv="P2P_FD_$1"
    echo "$2" >&"${!fdv}" 2>/dev/null || true
}

# p2p_wait NAME REGEX [SECONDS]: 0 once a stdout line matches
p2p_wait() {
    local name=$1 re=$2 limit=${3:-15} i
    for ((i = 0; i < limit * 10; i++)); do
        if grep -qE "$re" "$T/$name.out" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

p2p_field() { # NAME PREFIX -> second word of the first line starting with PREFIX
    grep -m1 "^$2 " "$T/$1.out" | awk '{print $2}'
}

p2p_kill() {
    local pidv="P2P_PID_$1" fdv="P2P_FD_$1"
    if [ -n "${!fdv:-}" ]; then
        eval "exec ${!fdv}>&-" 2>/dev/null || true
        eval "unset P2P_FD_$1"
    fi
    if [ -n "${!pidv:-}" ]; then
        kill "${!pidv}" 2>/dev/null || true
        wait "${!pidv}" 2>/dev/null || true
        eval "unset P2P_PID_$1"
    fi
}

# p2p_quit NAME: ask politely, then make sure it is gone
p2p_quit() {
    local pidv="P2P_PID_$1" i
    p2p_send "$1" quit
    for ((i = 0; i < 50; i++)); do
        kill -0 "${!pidv:-0}" 2>/dev/null || break
        sleep 0.1
    done
    p2p_kill "$1"
}

check() { # NAME CMD...
    local name=$1
    shift
    TAPN=$((TAPN + 1))
    if "$@"; then
        echo "ok $TAPN - $name"
    else
        echo "not ok $TAPN - $name"
        FAILS=$((FAILS + 1))
    fi
}
