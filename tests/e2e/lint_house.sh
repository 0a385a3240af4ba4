#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# lint_house.sh - scripts/lint-house.py, the house rules `make lint` enforces (docs/layers.md),
# catches each kind of violation in a scratch tree and passes the real tree: an include that
# points up a layer, one that points sideways (attest <-> net), a private header included from
# another module, a bare protocol length; and it lets through what the rules allow (own
# module's private header, a lower layer, a #define that names a length, a marked literal, a
# shift, a length in a comment or string). Prints TAP.
set -u
ROOT=${MERO_ROOT:?}
LINT="python3 $ROOT/scripts/lint-house.py"
T=$(mktemp -d "${TMPDIR:-/tmp}/lint-house.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }

mkdir -p "$T/src/node" "$T/src/attest" "$T/src/api" "$T/src/gov" "$T/include/mero"
cd "$T" || exit 1

flags() { # name file expected-rule (or "none") -- content on stdin
    local name=$1 file=$2 want=$3
    cat >"$file"
    out=$($LINT "$file" 2>&1)
    rc=$?
    if [ "$want" = none ]; then
        [ $rc = 0 ] && ok "$name" || nok "$name" "flagged: $out"
    else
        [ $rc = 1 ] && grep -q ": $want: " <<<"$out" && ok "$name" || nok "$name" "rc=$rc out=$out"
    fi
    rm -f "$file"
}

flags "node including the API's public header points up" src/node/x.c layers <<<'#include "mero/api.h"'
flags "node including an API private header is refused" src/node/x.c private <<<'#include "api/api_internal.h"'
flags "attest including net points sideways" src/attest/x.c layers <<<'#include "mero/net.h"'
flags "gov including node's public header points up" src/gov/x.c layers <<<'#include "mero/node.h"'
flags "an unknown mero/ header is refused" src/gov/x.c layers <<<'#include "mero/nosuch.h"'
flags "a bare 32 as an array length" src/gov/x.c lengths <<<'static unsigned char ns[32];'
flags "a bare 48 in a memcpy" src/attest/x.c lengths <<<'void f(void *a, const void *b) { memcpy(a, b, 48); }'
flags "a bare 96u is a length too" src/node/x.c lengths <<<'static const unsigned n = 96u;'
flags "a public header with a bare length" include/mero/quote.h lengths <<<'struct q { unsigned char mrtd[48]; };'
flags "own module's private header is fine" src/node/x.c none <<<'#include "node/node_internal.h"'
flags "a lower layer's public header is fine" src/api/x.c none <<<'#include "mero/node.h"'
flags "a #define that names a length is fine" src/gov/x.c none <<<'#define X_LEN 32'
flags "a marked literal is fine" src/gov/x.c none <<<'static int bits = 32; /* not a length */'
flags "a shift by 32 is fine" src/gov/x.c none <<<'unsigned long long f(unsigned long long v) { return v >> 32; }'
flags "lengths in comments and strings are ignored" src/gov/x.c none <<'C'
/* a 32-byte id */
static const char *s = "48 bytes";
C
flags "uint32_t and base64 are not lengths" src/gov/x.c none <<<'static uint32_t base64_len;'

cd "$ROOT" || exit 1
out=$($LINT 2>&1) && ok "the project's own tree passes the house rules" || nok "the project's own tree passes the house rules" "$(head -5 <<<"$out")"
echo "1..$n"
