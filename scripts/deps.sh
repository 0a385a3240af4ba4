#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deps.sh - idempotent set-up: installs the Debian packages the build and tests need (only
# those missing; apt-get update only when something is missing) and the npm test peers under
# tests/js (only when absent). `make` calls it bare: the build needs Debian packages only; the
# test targets call it with --with-npm, which adds nodejs, npm, the npm test peers and the
# tools only tests use (chromium, prometheus, zsh, fish).
# Safe to re-run.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
want=(build-essential pkg-config libsodium-dev libuv1-dev libmicrohttpd-dev libjansson-dev
      libcurl4-openssl-dev libssl-dev libsqlite3-dev sqlite3 jq clang-14 libclang-rt-14-dev
      clang-format cppcheck libtsan2 python3 python3-dissononce python3-cryptography mandoc nodejs npm
      iproute2 procps curl cmake g++ strace util-linux
      xxd)
# Tools only the tests use (issue 35 item 7): installed for the test targets (--with-npm), not
# for `make` or `make run`: chromium (tests/e2e/admin_ui.sh), prometheus for promtool
# (metrics.sh, alert_rules.sh), zsh and fish (meroctl_help.sh runs the completion scripts).
if [ "${1:-}" = "--with-npm" ]; then
    want+=(chromium prometheus zsh fish)
fi
missing=()
for p in "${want[@]}"; do
    # nodejs/npm may come from outside Debian on some machines: accept the commands
    case $p in
    nodejs) { [ "${1:-}" != "--with-npm" ] || command -v node >/dev/null 2>&1; } && continue ;;
    npm) { [ "${1:-}" != "--with-npm" ] || command -v npm >/dev/null 2>&1; } && continue ;;
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
if [ "${1:-}" = "--with-npm" ] && npm_missing; then
    echo "deps: installing npm test peers in tests/js" >&2
    (cd "$ROOT/tests/js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
        (cd "$ROOT/tests/js" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
exit 0
