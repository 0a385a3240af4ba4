#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh BUILD_DIR - `make run`: the fleet-admission story on loopback, told step by step.
# An owner node and a mock-TEE replica start in a temporary directory on 127.0.0.1; the owner
# sets an admission policy; the replica prompts, is challenged, answers with a quote, is
# admitted and receives the group key; the owner goes offline and the replica still serves
# the owner's data. Exits 0 when the story completes; every process it started is stopped.
set -u
B=${1:-build/release}
BIN=$(cd "$B/bin" && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/mero-demo.XXXXXX")
PIDS=()

cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.3
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$DIR"
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

api() { # name method path [body]
    local n=$1 m=$2 p=$3 body=${4-} url tok
    eval "url=\$URL_$n; tok=\$TOK_$n"
    local args=(-s -X "$m" --max-time 120 -H "Authorization: Bearer $tok")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    curl "${args[@]}" "$url$p"
}

say "mero fleet admission demo (all on 127.0.0.1, state in $DIR)"

say "1. Two nodes start: an owner, and a TEE replica (merod run --mock-tee)"
start owner
OWNER=$(jq -r '.listenAddrs[0]' "$DIR/owner/run.json")
start replica --mock-tee --bootstrap "$OWNER"
note "owner   $(jq -r .peerId "$DIR/owner/run.json")"
note "replica $(jq -r .peerId "$DIR/replica/run.json")"

say "2. The owner creates a namespace and a context, and writes some data"
NS=$(api owner POST /admin-api/namespaces '{}' | jq -r .data.namespaceId)
[ ${#NS} = 64 ] || die "no namespace"
CTX=$(api owner POST "/admin-api/groups/$NS/contexts" '{}' | jq -r .data.contextId)
[ ${#CTX} = 64 ] || die "no context"
api owner PUT "/admin-api/contexts/$CTX/kv/motto" '{"value":"available while the owner sleeps"}' >/dev/null
note "namespace $NS"
note "context   $CTX, key motto written by the owner"

say "3. Policy set: the owner publishes a TEE admission policy (the only human step)"
Z=$(printf '%096d' 0)
R=$(api owner PUT "/admin-api/groups/$NS/settings/tee-admission-policy" \
    "{\"allowedMrtd\":[\"$Z\"],\"allowedRtmr1\":[\"$Z\"],\"allowedRtmr2\":[\"$Z\"],\"allowedRtmr3\":[\"$Z\"],\"acceptMock\":true}")
jq -e .data >/dev/null <<<"$R" || die "policy refused: $R"
note "MRTD and RTMR1-3 pinned (mock quotes carry zero registers), acceptMock: true"

say "4. The replica is asked to join (POST /admin-api/tee/fleet-join) and prompts on ns/<hex>"
api replica POST /admin-api/tee/fleet-join "{\"groupId\":\"$NS\"}" >"$DIR/join.json" &
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
R=$(cat "$DIR/join.json")
say "6. Admitted: the owner verified the quote and published the admission"
jq -e '.data.admitted == true' >/dev/null <<<"$R" || die "not admitted: $R"
note "owner:   $(grep -m1 -o 'admission (offered path).*' "$DIR/owner.log")"
ROLE=$(api owner GET "/admin-api/groups/$NS/members" | jq -r "[.data.members[]|select(.tee==true)][0].role")
note "the replica is a member with role $ROLE"

say "7. Key delivered: the group key reached the replica (KeyDelivery), it self-confirmed"
note "fleet-join answered: $(jq -c '{status: .data.status, admitted: .data.admitted, auto_follow_enabled: .data.auto_follow_enabled, contexts_joined: .data.contexts_joined}' <<<"$R")"
for _ in $(seq 150); do
    V=$(api replica GET "/admin-api/contexts/$CTX/kv/motto" | jq -r .data.value)
    [ "$V" = "available while the owner sleeps" ] && break
    sleep 0.1
done
[ "$V" = "available while the owner sleeps" ] || die "the replica cannot read the owner's data"
note "the replica decrypts the owner's data: motto = \"$V\""

say "8. Owner offline: the owner node is stopped"
kill -TERM "$PID_owner"
for _ in $(seq 50); do kill -0 "$PID_owner" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID_owner" 2>/dev/null && die "owner did not stop"
note "owner stopped"

say "9. Data read from the replica while the owner is offline"
V=$(api replica GET "/admin-api/contexts/$CTX/kv/motto" | jq -r .data.value)
[ "$V" = "available while the owner sleeps" ] || die "read from the replica failed"
note "GET motto from the replica: \"$V\""
CODE=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $TOK_replica" \
    -H 'Content-Type: application/json' --data-binary '{"value":"x"}' "$URL_replica/admin-api/contexts/$CTX/kv/motto")
note "a write on the replica is refused: HTTP $CODE (a ReadOnlyTee never writes in its own name)"
[ "$CODE" = 403 ] || die "the replica accepted a write"

say "The story is complete: a TEE replica admitted itself and serves the namespace with the owner offline."
exit 0
