#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deps.sh - idempotent set-up: installs the Debian packages a target needs (only those
# missing; apt-get update only when something is missing) and the npm test peers under tests/js
# (only when absent). `make` and `make run` call it bare: only what building and running the
# demo need (the compiler and the libraries' -dev packages, pkg-config, xxd for the embedded
# page, jq for scripts/demo.sh). The test, lint, fuzz and bench targets call it with --test
# (--with-npm, its older name, still works), which adds the tools only they use: clang,
# clang-format, cppcheck, mandoc, ThreadSanitizer's runtime, cmake and g++ (the Intel QVL
# test oracle, tests/diff), chromium, prometheus (promtool),
# zsh and fish, strace, sqlite3, curl, python3 with the Noise interop peers, nodejs, npm and
# the npm peers (issue 35 item 7; docs/build-and-tests.md).
# Safe to re-run. `scripts/deps.sh --list [--test]` prints the package list and installs nothing.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TEST=no LIST=no
for a in "$@"; do
    case $a in
    --test | --with-npm) TEST=yes ;;
    --list) LIST=yes ;;
    *) echo "usage: scripts/deps.sh [--test] [--list]" >&2; exit 2 ;;
    esac
done
# building (make) and running the demo (make run)
want=(build-essential pkg-config libsodium-dev libuv1-dev libmicrohttpd-dev libjansson-dev
      libcurl4-openssl-dev libssl-dev libsqlite3-dev xxd jq)
# only the test targets (make test / asan / tsan / lint / fuzz / bench)
if [ $TEST = yes ]; then
    want+=(clang-14 libclang-rt-14-dev clang-format cppcheck mandoc libtsan2 g++ cmake
           chromium prometheus zsh fish strace sqlite3 curl iproute2 procps util-linux
           python3 python3-dissononce python3-cryptography nodejs npm)
fi
if [ $LIST = yes ]; then
    printf '%s\n' "${want[@]}"
    exit 0
fi
missing=()
for p in "${want[@]}"; do
    # nodejs/npm may come from outside Debian on some machines: accept the commands
    case $p in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}" >&2
    SUDO=
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# every declared test peer: a package added to package.json later installs too (issue 19:
# puppeteer-core for the admin page's browser test)
npm_missing() {
    [ -d "$ROOT/tests/js/node_modules" ] || return 0
    for d in $(sed -n '/"dependencies"/,/}/{/"dependencies"/!s/^ *"\([^"]*\)": .*/\1/p;}' "$ROOT/tests/js/package.json"); do
        [ -e "$ROOT/tests/js/node_modules/$d/package.json" ] || return 0
    done
    return 1
}
if [ $TEST = yes ] && npm_missing; then
    echo "deps: installing npm test peers in tests/js" >&2
    (cd "$ROOT/tests/js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
        (cd "$ROOT/tests/js" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
exit 0
