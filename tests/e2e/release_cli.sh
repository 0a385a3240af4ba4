#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# release_cli.sh - `meroctl release verify`, `release trusted-root show|check` and `meroctl
# release match` end to end: exit codes (0 verified / 1 unusable input / 2 refused), the --json
# fields, every shared Sigstore case (its own trusted root or the shipped one, --key for
# managed-key cases) and mero-tee case with its verdict, the shipped root's SHA-256 pin, and
# matching a real TDX quote whose MRTD/RTMR0-3 were
# overwritten with a v2.3.87 profile's values (and then with RTMR2 changed). TAP output.
set -u
MEROCTL=${MERO_BIN:?}/meroctl
S=${MERO_SHARED:?}/testdata
TR=$S/sigstore/trusted-root-public-good/trusted_root.json
M=$S/mero-tee
GH=https://token.actions.githubusercontent.com
NODE_SAN=https://github.com/calimero-network/mero-tee/.github/workflows/release-node-image-gcp.yaml@refs/heads/master
BEACON=https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mero-release-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
B() { timeout 30 "$MEROCTL" "$@"; }
B=B
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1 # $2"; }
expect() { # name want_rc cmd...
    local name=$1 want=$2
    shift 2
    : >"$tmp/out"
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name"; else nok "$name" "exit $rc, want $want: $(head -c 300 "$tmp/err")"; fi
}
jqt() { [ -s "$tmp/out" ] && jq -e "$1" "$tmp/out" >/dev/null; }
node_verify() { # dir file [extra...]
    local d=$1 f=$2
    shift 2
    "$B" release verify --artifact "$M/$d/$f" --bundle "$M/$d/$f.bundle.json" --trusted-root "$TR" \
        --issuer "$GH" --identity "$NODE_SAN" --workflow-name "Release mero-tee" \
        --repository calimero-network/mero-tee --ref refs/heads/master "$@"
}

echo "1..39"
expect "v2.3.87 verifies under the node-release identity" 0 \
    node_verify v2.3.87 published-mrtds.json --sig "$M/v2.3.87/published-mrtds.json.sig" --json
if jqt '.verified == true and .reason == null and .identity == "'"$NODE_SAN"'" and .issuer == "'"$GH"'" and .integrated_time == 1790590764' ; then
    ok "--json reports verified, identity, issuer, integrated_time"
else nok "--json fields" "$(cat "$tmp/out")"; fi
expect "v2.3.87 refused under another SAN" 2 \
    node_verify v2.3.87 published-mrtds.json --identity "${NODE_SAN/master/main}"
expect "v2.3.87 refused under another workflow name" 2 \
    node_verify v2.3.87 published-mrtds.json --workflow-name "Release mero-kms"
expect "v2.3.87 refused under another issuer" 2 \
    node_verify v2.3.87 published-mrtds.json --issuer https://accounts.google.com --json
if jqt '.verified == false and (.reason | test("issuer")) and .identity == "'"$NODE_SAN"'"' ; then
    ok "--json of an identity refusal still names the signer"
else nok "--json refusal" "$(cat "$tmp/out")"; fi
expect "tampered release refused" 2 node_verify v2.3.87-tampered_fail published-mrtds.json \
    --sig "$M/v2.3.87-tampered_fail/published-mrtds.json.sig" --json
if jqt '.reason_code == "ESIGSTORE_DIGEST"' ; then ok "tampered: digest reason"; else nok "tampered reason" "$(cat "$tmp/out")"; fi
expect "provenance file: signature layer passes" 0 node_verify v2.3.87-release-provenance release-provenance.json
expect "KMS-signed file refused under the node identity" 2 \
    node_verify kms-v2.3.87-wrong-identity_fail kms-attestation-policy.json
printf 'AAAA' >"$tmp/other.sig"
expect "a detached .sig other than the bundle's is refused" 2 \
    node_verify v2.3.87 published-mrtds.json --sig "$tmp/other.sig"
expect "missing required option is a usage error" 1 "$B" release verify --artifact x
expect "unreadable artifact is unusable input" 1 node_verify v2.3.87 no-such-file
echo '{}' >"$tmp/tr.json"
expect "unusable trusted root is unusable input" 1 "$B" release verify \
    --artifact "$M/v2.3.87/published-mrtds.json" --bundle "$M/v2.3.87/published-mrtds.json.bundle.json" \
    --trusted-root "$tmp/tr.json" --issuer "$GH" --identity "$NODE_SAN"

# every conformance case: its own trusted root when it has one, else the shipped root (no
# --trusted-root: the default is the pinned public-good copy); --key for managed-key cases
bad=""
unset MERO_SIGSTORE_TRUSTED_ROOT
for d in "$S"/sigstore/conformance-*/; do
    c=$(basename "$d")
    want=0
    case $c in *_fail) want=2 ;; esac
    san=$BEACON
    case $c in *wrong-identity_fail) san=$NODE_SAN ;; esac
    root=()
    [ -f "$d/trusted_root.json" ] && root=(--trusted-root "$d/trusted_root.json")
    who=(--issuer "$GH" --identity "$san")
    [ -f "$d/key.pub" ] && who=(--key "$d/key.pub")
    "$B" release verify --artifact "$d/artifact" --bundle "$d/bundle.sigstore.json" \
        "${root[@]}" "${who[@]}" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq "$want" ] || bad="$bad $c(exit $rc)"
    # the upstream suite's second run: the artifact named by its digest
    "$B" release verify --artifact "sha256:$(sha256sum "$d/artifact" | cut -d' ' -f1)" \
        --bundle "$d/bundle.sigstore.json" "${root[@]}" "${who[@]}" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq "$want" ] || bad="$bad $c(sha256: exit $rc)"
done
if [ -z "$bad" ]; then ok "every conformance case gives its verdict (file and sha256:)"; else nok "conformance verdicts" "$bad"; fi
expect "--artifact sha256: with a short digest is a usage error" 1 "$B" release verify \
    --artifact sha256:abcd --bundle "$TR" --issuer "$GH" --identity "$BEACON"
K=$S/sigstore/conformance-managed-key-happy-path
expect "managed-key bundle verifies with --key" 0 "$B" release verify --artifact "$K/artifact" \
    --bundle "$K/bundle.sigstore.json" --key "$K/key.pub" --json
if jqt '.verified == true and .key_based == true and .timestamp_time > 0' ; then
    ok "--json of a key-based bundle: key_based, timestamp_time"
else nok "--key json" "$(cat "$tmp/out")"; fi
expect "managed-key bundle without --key is refused" 2 "$B" release verify --artifact "$K/artifact" \
    --bundle "$K/bundle.sigstore.json" --issuer "$GH" --identity "$BEACON"
expect "--key together with --identity is a usage error" 1 "$B" release verify \
    --artifact "$K/artifact" --bundle "$K/bundle.sigstore.json" --key "$K/key.pub" --identity x
R2=$S/sigstore/conformance-rekor2-dsse-happy-path
expect "Rekor v2 DSSE bundle verifies" 0 "$B" release verify --artifact "$R2/artifact" \
    --bundle "$R2/bundle.sigstore.json" --trusted-root "$R2/trusted_root.json" --issuer "$GH" \
    --identity "$BEACON" --json
if jqt '.verified == true and .dsse == true and .integrated_time == .timestamp_time' ; then
    ok "Rekor v2: the signing time is the RFC 3161 time"
else nok "rekor v2 json" "$(cat "$tmp/out")"; fi

# trusted roots: show the shipped one, check replacements, refuse an altered shipped copy
expect "trusted-root show (shipped)" 0 "$B" release trusted-root show
if grep -q 'shipped' "$tmp/out" && grep -q 'log2025-1.rekor.sigstore.dev .*Ed25519' "$tmp/out" &&
    grep -q '^tsa .*timestamp.sigstore.dev' "$tmp/out" && grep -q 'usable: 2/2 tlogs' "$tmp/out"; then
    ok "show lists the Rekor v1+v2 logs, CAs, TSA and windows"
else nok "show output" "$(head -c 400 "$tmp/out")"; fi
ST=$S/sigstore/conformance-rekor2-happy-path/trusted_root.json
expect "check: a staging root with an RSA CT log is usable" 0 "$B" release trusted-root check "$ST"
if grep -q 'ctfe.sigstage.dev/test .*RSA PKCS#1' "$tmp/out"; then ok "the RSA CT key loads"; else nok "rsa ctlog" "$(cat "$tmp/out")"; fi
expect "check: a root with one unusable tlog still loads" 0 "$B" release trusted-root check \
    "$S/sigstore/conformance-trust-root-tlog-missing-validity-start_fail/trusted_root.json"
if grep -q 'skipped: publicKey.validFor' "$tmp/out" && grep -q '^warning: 1 entry skipped' "$tmp/out"; then
    ok "check names the skipped entry"
else nok "skipped entry" "$(cat "$tmp/out")"; fi
jq '.tlogs |= map(.publicKey.keyDetails = "ML_DSA_65")' "$ST" >"$tmp/notlog.json"
expect "check: a root with no usable tlog is refused" 2 "$B" release trusted-root check "$tmp/notlog.json"
expect "check: not a trusted root" 2 "$B" release trusted-root check "$tmp/tr.json"
expect "check: unreadable file" 1 "$B" release trusted-root check "$tmp/none.json"
mkdir -p "$tmp/pfx/bin" "$tmp/pfx/share/mero/sigstore"
cp "$MEROCTL" "$tmp/pfx/bin/meroctl"
sed 's/rekor.sigstore.dev/rekor.sigstore.dew/' "$TR" >"$tmp/pfx/share/mero/sigstore/trusted_root.json"
expect "an altered shipped root is refused (SHA-256 pin)" 2 "$tmp/pfx/bin/meroctl" release trusted-root show
if grep -q 'not the pinned file' "$tmp/err"; then ok "the pin refusal says why"; else nok "pin reason" "$(cat "$tmp/err")"; fi

# release match on a real quote carrying v2.3.87 locked-read-only's registers
python3 - "$S/tdx/dcapqvl-1/quote.bin" "$M/v2.3.87/published-mrtds.json" "$tmp" <<'EOF'
import json, struct, sys
q = bytearray(open(sys.argv[1], "rb").read())
p = json.load(open(sys.argv[2]))["profiles"]["locked-read-only"]
ver = struct.unpack_from("<H", q, 0)[0]
body = 48 if ver == 4 else 54
q[body + 136:body + 184] = bytes.fromhex(p["mrtd"])
for i in range(4):
    o = body + 328 + 48 * i
    q[o:o + 48] = bytes.fromhex(p["rtmr%d" % i])
open(sys.argv[3] + "/match.bin", "wb").write(q)
o = body + 328 + 48 * 2 + 5
q[o] ^= 1
open(sys.argv[3] + "/rtmr2.bin", "wb").write(q)
EOF
expect "quote with locked-read-only's registers matches" 0 "$B" release match \
    --release "$M/v2.3.87/published-mrtds.json" --quote "$tmp/match.bin" --json
if jqt '.matched == true and .profile == "locked-read-only" and .release == "2.3.87"' ; then
    ok "match --json names the profile"
else nok "match json" "$(cat "$tmp/out")"; fi
expect "the same quote is refused when only debug is allowed" 2 "$B" release match \
    --release "$M/v2.3.87/published-mrtds.json" --quote "$tmp/match.bin" --profile debug
expect "a changed RTMR2 matches nothing" 2 "$B" release match \
    --release "$M/v2.3.87/published-mrtds.json" --quote "$tmp/rtmr2.bin" --json
if jqt '.matched == false and (.reason | test("RTMR2"))' ; then ok "RTMR2 named as the difference"; else nok "rtmr2 reason" "$(cat "$tmp/out")"; fi
expect "the provenance file is not a release" 1 "$B" release match \
    --release "$M/v2.3.87-release-provenance/release-provenance.json" --quote "$tmp/match.bin"
