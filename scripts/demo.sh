#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh BUILD_DIR - `make run`: the fleet-admission story on loopback, told step by step.
# An owner node and a mock-TEE replica (merod --name owner / --name replica, so every log line
# says which node wrote it) start in a temporary directory on 127.0.0.1; the owner sets an
# admission policy; the replica prompts, is challenged, answers with a quote, is admitted and
# receives the group key; the namespace switches to relay mode, so the replica becomes a relay
# (RelayTee) that carries a write signed by a client with no node of its own, read back on the
# owner as the client's (issue 15); the owner goes offline and the TEE still serves the data.
# It ends with the fleet table (`meroctl fleet NS`, the TEE's view) and, as its last lines, the
# fleet page's address (/admin-ui/) on the replica, left serving with KEEP=1, or how to get that.
# Every step is a meroctl command, printed as it runs so an operator can copy it (the two
# shell functions it uses are printed first). Exits 0 when the story completes; every process
# it started is stopped, except with KEEP=1 (`make run KEEP=1`) the replica, which keeps serving
# its page (the last lines say how to stop it); the directory is removed unless KEEP=1.
set -u
B=${1:-build/release}
BIN=$(cd "$B/bin" && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/mero-demo.XXXXXX")
PIDS=()

# The last lines say where the fleet page is: with KEEP=1 the replica is left serving it (its
# address, token file and the command that stops it); without, how to get a node that does.
SERVING=no
cleanup() {
    for p in "${PIDS[@]}"; do
        [ "$SERVING" = yes ] && [ "$p" = "${PID_replica:-}" ] && continue
        kill -TERM "$p" 2>/dev/null
    done
    sleep 0.3
    for p in "${PIDS[@]}"; do
        [ "$SERVING" = yes ] && [ "$p" = "${PID_replica:-}" ] && continue
        kill -KILL "$p" 2>/dev/null
    done
    if [ "${KEEP:-0}" = 1 ]; then
        printf '\nKEEP=1: the nodes\x27 directories and logs are kept in %s\n' "$DIR"
    else
        rm -rf "$DIR"
    fi
    if [ "$SERVING" = yes ]; then
        printf '\nThe replica is still serving (pid %s). The fleet page: %s/admin-ui/\n' "$PID_replica" "$URL_replica"
        printf 'sign in with the token in %s/replica/admin-token; stop the node with: kill %s\n' "$DIR" "$PID_replica"
    elif [ "${DONE:-no}" = yes ]; then
        printf '\nThe nodes are stopped. To keep the replica serving its fleet page after the story, run: make run KEEP=1\n'
    fi
}
trap cleanup EXIT

if [ -t 1 ]; then
    say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
else
    say() { printf '\n%s\n' "$*"; }
fi
note() { printf '    %s\n' "$*"; }
die() { printf '\ndemo failed: %s\n' "$*" >&2; for f in "$DIR"/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done; exit 1; }

start() { # name [run flags...]
    local n=$1
    shift
    "$BIN/merod" init --home "$DIR/$n" --name "$n" --api 127.0.0.1:0 --listen /ip4/127.0.0.1/tcp/0 >/dev/null || die "merod init $n"
    "$BIN/merod" run --home "$DIR/$n" "$@" >>"$DIR/$n.log" 2>&1 &
    PIDS+=($!)
    eval "PID_$n=$!"
    for _ in $(seq 100); do [ -s "$DIR/$n/run.json" ] && break; sleep 0.1; done
    [ -s "$DIR/$n/run.json" ] || die "$n did not start"
    eval "URL_$n=\$(jq -r .apiUrl \"$DIR/$n/run.json\")"
    eval "TOK_$n=\$(tr -d '\n' <\"$DIR/$n/admin-token\")"
}

# ctl NAME ARGS...: print the meroctl command (as the NAME function printed at the start) and
# run it; its output is indented
ctl() {
    local n=$1
    shift
    printf '    $ %s' "$n" >&2
    printf ' %q' "$@" >&2
    printf '\n' >&2
    "$n" "$@"
}
say "mero fleet admission demo (all on 127.0.0.1, state in $DIR)"

say "1. Two nodes start: an owner, and a TEE replica (merod run --mock-tee)"
start owner
OWNER=$(jq -r '.listenAddrs[0]' "$DIR/owner/run.json")
start replica --mock-tee --bootstrap "$OWNER"
note "owner   $(jq -r .peerId "$DIR/owner/run.json")  (log: $DIR/owner.log)"
note "replica $(jq -r .peerId "$DIR/replica/run.json")  (log: $DIR/replica.log)"
note "each log line names its node; the commands below use these two functions:"
owner() { "$BIN/meroctl" --node "$URL_owner" --token-file "$DIR/owner/admin-token" "$@"; }
replica() { "$BIN/meroctl" --node "$URL_replica" --token-file "$DIR/replica/admin-token" "$@"; }
note "owner()   { $BIN/meroctl --node $URL_owner --token-file $DIR/owner/admin-token \"\$@\"; }"
note "replica() { $BIN/meroctl --node $URL_replica --token-file $DIR/replica/admin-token \"\$@\"; }"

say "2. Namespace created: the owner creates a namespace and a context, and writes some data"
NS=$(ctl owner --json namespace create | jq -r .namespaceId)
[ ${#NS} = 64 ] || die "no namespace"
CTX=$(ctl owner --json context create "$NS" | jq -r .contextId)
[ ${#CTX} = 64 ] || die "no context"
ctl owner kv put "$CTX" motto "available while the owner sleeps" >/dev/null || die "kv put"
note "namespace $NS"
note "context   $CTX, key motto written by the owner"

say "3. Policy set: the owner publishes a TEE admission policy (the only human step)"
ctl replica --json tee attest >"$DIR/attest.json" || die "tee attest"
R1=$(jq -r .quote.body.rtmr1 "$DIR/attest.json")
R2=$(jq -r .quote.body.rtmr2 "$DIR/attest.json")
R3=$(jq -r .quote.body.rtmr3 "$DIR/attest.json")
MRTD=$(jq -r .quote.body.mrtd "$DIR/attest.json")
ctl owner group settings set-tee-admission-policy "$NS" --mrtd "$MRTD" --rtmr1 "$R1" \
    --rtmr2 "$R2" --rtmr3 "$R3" --accept-mock --mode replica >/dev/null || die "policy refused"
note "MRTD and RTMR1-3 pinned from the replica's quote (a mock quote's are zero), --accept-mock"

say "4. Prompted: the replica is asked to join and prompts on ns/<hex>"
printf '    $ replica --json tee fleet-join %s\n' "$NS"
replica --json tee fleet-join "$NS" >"$DIR/join.json" 2>"$DIR/join.err" &
JOIN=$!
for _ in $(seq 100); do grep -q "prompted on" "$DIR/replica.log" && break; sleep 0.1; done
grep -q "prompted on" "$DIR/replica.log" || die "the replica did not prompt"
note "replica: $(grep -m1 -o 'fleet-join: prompted on.*' "$DIR/replica.log")"

say "5. Challenged: the owner (an admin, so it may vouch) offers the replica a fresh challenge"
for _ in $(seq 100); do grep -q "offered a challenge" "$DIR/owner.log" && break; sleep 0.1; done
grep -q "offered a challenge" "$DIR/owner.log" || die "no challenge was offered"
note "owner:   $(grep -m1 -o 'admission: offered a challenge.*' "$DIR/owner.log")"
for _ in $(seq 100); do grep -q "TEE answered the challenge" "$DIR/owner.log" && break; sleep 0.1; done
note "replica: quote made over challenge || admission binding of its credential"
note "owner:   $(grep -m1 -o 'TEE answered the challenge offered for its prompt' "$DIR/owner.log")"

wait "$JOIN"
JRC=$?
R=$(cat "$DIR/join.json")
say "6. Admitted: the owner verified the quote and published the admission"
[ $JRC -eq 0 ] && jq -e '.admitted == true' >/dev/null <<<"$R" || die "not admitted: $R $(cat "$DIR/join.err")"
note "owner:   $(grep -m1 -o 'admission (offered path).*' "$DIR/owner.log")"
ROLE=$(ctl owner --json group members list "$NS" | jq -r "[.members[]|select(.tee==true)][0].role")
note "the replica is a member with role $ROLE"

say "7. Key delivered: the group key reached the replica (KeyDelivery), it self-confirmed"
note "fleet-join said: $(grep -m1 'fleet-join: admitted' "$DIR/join.err")"
note "fleet-join answered: $(jq -c '{status, admitted, auto_follow_enabled, contexts_joined}' <<<"$R")"
for _ in $(seq 150); do
    V=$(replica --json kv get "$CTX" motto 2>/dev/null | jq -r .value)
    [ "$V" = "available while the owner sleeps" ] && break
    sleep 0.1
done
[ "$V" = "available while the owner sleeps" ] || die "the replica cannot read the owner's data"
note "the replica decrypts the owner's data: motto = \"$V\""

say "8. A write carried by a relay: the namespace switches to mode=relay"
ctl owner group settings set-tee-admission-policy "$NS" --mrtd "$MRTD" --rtmr1 "$R1" \
    --rtmr2 "$R2" --rtmr3 "$R3" --accept-mock --mode relay >/dev/null || die "relay policy refused"
for _ in $(seq 150); do
    ROLE=$(replica --json group members list "$NS" 2>/dev/null | jq -r "[.members[]|select(.tee==true)][0].role")
    [ "$ROLE" = RelayTee ] && break
    sleep 0.1
done
[ "$ROLE" = RelayTee ] || die "the replica was not converted to a relay"
note "the TEE's row was converted (MemberRoleSet): it is now a $ROLE, a relay"
client() { "$BIN/meroctl" "$@"; }
note "a client with no node of its own holds one key: client() { $BIN/meroctl \"\$@\"; }"
CLIENT=$(ctl client --json key generate --out "$DIR/client.key" | jq -r .identity)
[ ${#CLIENT} = 64 ] || die "no client key"
ctl owner group members add "$NS" "$CLIENT" --role Member >/dev/null || die "member add"
note "the owner made the client's identity a Member"
for _ in $(seq 150); do
    replica --json group members list "$NS" 2>/dev/null | jq -e "any(.members[]; .identity == \"$CLIENT\")" >/dev/null && break
    sleep 0.1
done
INTENT=$(ctl client intent sign --key "$DIR/client.key" --namespace "$NS" --context "$CTX" \
    --put "greeting=written by a client through the relay") || die "intent sign"
note "the client signed an intent offline ($(printf %s "$INTENT" | wc -c) base64 characters)"
DELTA=$(ctl replica --json intent submit "$CTX" "$INTENT" | jq -r .deltaId)
[ ${#DELTA} = 64 ] || die "the relay refused the intent"
note "the relay carried it: relayed delta $DELTA"
for _ in $(seq 150); do
    G=$(owner --json kv get "$CTX" greeting 2>/dev/null)
    [ "$(jq -r .value <<<"$G")" = "written by a client through the relay" ] && break
    sleep 0.1
done
G=$(ctl owner --json kv get "$CTX" greeting)
[ "$(jq -r .value <<<"$G")" = "written by a client through the relay" ] || die "the owner did not receive the relayed write"
[ "$(jq -r .author <<<"$G")" = "$CLIENT" ] || die "the relayed write's author is not the client"
note "the owner reads greeting = \"$(jq -r .value <<<"$G")\", author $(jq -r .author <<<"$G") (the client)"

say "9. Owner offline: the owner node is stopped"
kill -TERM "$PID_owner"
for _ in $(seq 50); do kill -0 "$PID_owner" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID_owner" 2>/dev/null && die "owner did not stop"
note "owner stopped"

say "10. Data read from the replica: the owner is offline, the TEE still serves"
V=$(ctl replica --json kv get "$CTX" motto | jq -r .value)
[ "$V" = "available while the owner sleeps" ] || die "read from the replica failed"
note "motto from the replica: \"$V\""
ctl replica kv put "$CTX" motto x 2>"$DIR/write.err"
WRC=$?
note "a write on the replica is refused (exit $WRC): $(grep -m1 '^meroctl:' "$DIR/write.err")"
[ "$WRC" = 2 ] || die "the replica accepted a write"

say "The story is complete: a TEE admitted itself, carried a client's write as a relay, and serves the namespace with the owner offline."

say "The fleet view: who is in the namespace, their evidence, and the admission attempts (docs/fleet.md)"
ctl replica fleet "$NS" | sed 's/^/    /'
[ "${PIPESTATUS[0]}" = 0 ] || die "meroctl fleet failed"
note "(the replica's view; the same document: GET $URL_replica/admin-api/groups/$NS/fleet)"
DONE=yes
# KEEP=1: the replica goes on serving the page (cleanup leaves it running and says so last)
[ "${KEEP:-0}" = 1 ] && kill -0 "$PID_replica" 2>/dev/null && SERVING=yes
exit 0
