#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# secret_files.sh - issue 21 item 1: corrupted secret files refuse `merod run` (exit != 0,
# a message naming the file and the fix) instead of starting with a guessable admin token or
# a publicly known identity. Reproductions: an admin-token of 64 NUL bytes (made the empty
# bearer an admin), `a` + 63 NULs (made `Bearer a` one), 64 spaces, non-hex text; an
# all-zero identity.key; plus the near misses (63 or 65 hex, hex then a NUL, a 31-byte key, a
# FIFO in the token's place) and the secrets gov.db keeps (namespace identities, account key,
# group keys).
# A good node refuses the empty and the one-letter bearer, and the 0600 checks still hold.
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
init_node a
H=$WORK/a
cp "$H/admin-token" "$WORK/token.good"
cp "$H/identity.key" "$WORK/identity.good"

# refused NAME FILE: merod run must exit non-zero, naming FILE in its message, and not start
refused() {
    local name=$1 file=$2
    OUT=$(timeout 10 "$BIN/merod" run --home "$H" 2>&1)
    local rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -qF "$H/$file" <<<"$OUT" &&
        [ ! -e "$H/run.json" ]; then
        ok "$name"
    else
        nok "$name" "rc=$rc out=${OUT:0:300}"
    fi
}
# put FILE: replace FILE's content with stdin, keeping mode 0600
put() {
    cat >"$H/$1"
    chmod 600 "$H/$1"
}

head -c 64 /dev/zero | put admin-token
refused "admin-token of 64 NUL bytes refused" admin-token
check "the message says how to fix it" grep -q "openssl rand -hex 32" <<<"$OUT"
{ printf a; head -c 63 /dev/zero; } | put admin-token
refused "admin-token 'a' + 63 NULs refused" admin-token
printf '%64s' "" | put admin-token
refused "admin-token of 64 spaces refused" admin-token
printf '%064d' 0 | tr 0 g | put admin-token
refused "admin-token of 64 non-hex characters refused" admin-token
{ head -c 63 "$WORK/token.good"; printf '\n'; } | put admin-token
refused "admin-token of 63 hex characters refused" admin-token
{ head -c 64 "$WORK/token.good"; printf 'a'; } | put admin-token
refused "admin-token of 65 hex characters refused" admin-token
{ head -c 64 "$WORK/token.good"; printf '\0'; } | put admin-token
refused "admin-token with a trailing NUL refused" admin-token
{ head -c 64 "$WORK/token.good"; printf '\n\n'; } | put admin-token
refused "admin-token with two newlines refused" admin-token
: | put admin-token
refused "empty admin-token refused" admin-token
rm -f "$H/admin-token"
mkfifo -m 600 "$H/admin-token"
refused "a FIFO as admin-token refused at once (no wait for a writer)" admin-token
rm -f "$H/admin-token"
check "no message carries token bytes" eval '! grep -qF "$(head -c 16 "$WORK/token.good")" <<<"$OUT"'
cp "$WORK/token.good" "$H/admin-token"

head -c 32 /dev/zero | put identity.key
refused "all-zero identity.key refused" identity.key
check "the message calls it publicly known and names the fix" eval 'grep -q "publicly known" <<<"$OUT" && grep -q "merod init" <<<"$OUT"'
head -c 31 "$WORK/identity.good" | put identity.key
refused "31-byte identity.key refused" identity.key
: | put identity.key
refused "empty identity.key refused" identity.key
cp "$WORK/identity.good" "$H/identity.key"

chmod 644 "$H/admin-token"
refused "0644 admin-token still refused" admin-token
chmod 600 "$H/admin-token"

# the good files start, and the bearer values the corrupted files used to admit are refused
run_node a --mock-tee
check "the restored node starts" test -s "$H/run.json"
req a GET /admin-api/node "" "Bearer "
check "empty bearer refused 401" status_is 401
req a GET /admin-api/node "" "Bearer a"
check "one-letter bearer refused 401" status_is 401
req a GET /admin-api/node "" "Bearer $(head -c 63 "$WORK/token.good")"
check "token minus its last character refused 401" status_is 401
req a GET /admin-api/node "" "Bearer $(head -c 64 "$WORK/token.good")x"
check "token plus one character refused 401" status_is 401
req a GET /admin-api/node
check "the real token is accepted" status_is 200

# the secrets gov.db keeps are checked the same way: a namespace identity zeroed or cut short
# in the database refuses the start, naming gov.db
req a POST /admin-api/namespaces '{}'
check "namespace created" status_is 200
stop_node a
cp "$H/gov.db" "$WORK/gov.good"
sqlite3 "$H/gov.db" "update identities set sk = zeroblob(32)"
refused "all-zero namespace identity in gov.db refused" gov.db
check "the message names the namespace, not the key" grep -q "namespace [0-9a-f]\{16\}\.\.\." <<<"$OUT"
cp "$WORK/gov.good" "$H/gov.db"
sqlite3 "$H/gov.db" "update identities set sk = substr(sk, 1, 16)"
refused "truncated namespace identity in gov.db refused" gov.db
cp "$WORK/gov.good" "$H/gov.db"
sqlite3 "$H/gov.db" "insert or replace into account_key(id, sk) values(1, zeroblob(32))"
refused "all-zero account key in gov.db refused" gov.db
cp "$WORK/gov.good" "$H/gov.db"
sqlite3 "$H/gov.db" "update group_keys set key = zeroblob(32)"
refused "all-zero group key in gov.db refused" gov.db
cp "$WORK/gov.good" "$H/gov.db"
run_node a --mock-tee
check "restored gov.db starts again" test -s "$H/run.json"
finish
